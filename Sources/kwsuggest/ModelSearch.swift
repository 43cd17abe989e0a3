#if canImport(Glibc)
import Glibc
#endif

// Where a command finds its model directory. The model is tens of MB, so it is not embedded in the binary; a
// build run from any directory finds the repository's model above its executable, and an installed binary
// finds the one installed beside it.

/// The model directory a command uses and how it was chosen.
struct ModelSearch {
    /// The places searched, in order.
    enum Source: String {
        case option = "--model"
        case environment = "KWSUGGEST_MODEL"
        case workingDirectory = "working directory"
        case aboveExecutable = "above the executable"
        case installed = "installed"
        /// Nothing found: `models/default` in the working directory, so the error names that path.
        case notFound = "not found"
    }

    /// The order after `--model`, as the help of every command taking `--model` states it.
    static let defaultText = "$KWSUGGEST_MODEL, else the first that exists of ./models/default, models/default in "
        + "the executable's directory or the nearest one above it, and <prefix>/share/kwsuggest/models/default, "
        + "<prefix> being the executable's directory's parent"

    var path: String
    var source: Source

    /// Searches, in order: `option`; `environment` when set and not empty; `./models/default`; `models/default`
    /// in `executableDirectory` or the nearest directory above it that has one; `<executableDirectory>/../share/
    /// kwsuggest/models/default`. `option` and `environment` are taken as given; the others only if they exist.
    init(option: String?, environment: String?, executableDirectory: String?,
         isDirectory: (String) -> Bool = ModelSearch.isDirectory) {
        if let option { (path, source) = (option, .option); return }
        if let environment, !environment.isEmpty { (path, source) = (environment, .environment); return }
        if isDirectory("models/default") { (path, source) = ("models/default", .workingDirectory); return }
        if let executableDirectory {
            var directory = executableDirectory
            while true {
                let candidate = (directory == "/" ? "" : directory) + "/models/default"
                if isDirectory(candidate) { (path, source) = (candidate, .aboveExecutable); return }
                guard let parent = Self.parent(of: directory) else { break }
                directory = parent
            }
            if let prefix = Self.parent(of: executableDirectory) {
                let installed = (prefix == "/" ? "" : prefix) + "/share/kwsuggest/models/default"
                if isDirectory(installed) { (path, source) = (installed, .installed); return }
            }
        }
        (path, source) = ("models/default", .notFound)
    }

    /// The search for this process: `--model`'s value, `KWSUGGEST_MODEL` and the running executable.
    static func current(option: String?) -> ModelSearch {
        ModelSearch(option: option, environment: Environment.value("KWSUGGEST_MODEL"),
                    executableDirectory: executablePath().flatMap(parent(of:)))
    }

    /// The absolute path of the running executable, symbolic links resolved (Linux's /proc/self/exe).
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `/a/b` → `/a`, `/a` → `/`, `/` → nil; only for absolute paths without `.` or `..` parts.
    static func parent(of path: String) -> String? {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed.hasPrefix("/"), trimmed != "/", let slash = trimmed.lastIndex(of: "/") else { return nil }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The model directory for a command's `--model` value (see `ModelSearch`).
func resolveModelDirectory(_ option: String?) -> String {
    ModelSearch.current(option: option).path
}
