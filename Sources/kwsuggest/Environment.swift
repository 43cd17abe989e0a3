#if canImport(Glibc)
import Glibc
#endif

/// Reads process environment variables.
enum Environment {
    static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        return String(cString: raw)
    }
}
