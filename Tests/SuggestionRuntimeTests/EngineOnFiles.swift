// Engines over the file store beside a test model, as most engine tests use them.
import FileStore
import ModelStorage
import SuggestionRuntime

extension ModelEngine {
    /// An engine whose store is the file store on `overlayPath` (default `<model dir>/keywords.overlay.json`).
    convenience init(components: LoadedModel, overlayPath: String? = nil, applyOverlay: Bool = true,
                     autoAcceptPrecision: Double = ModelCalibration.defaultPrecision) throws {
        let path = overlayPath ?? KeywordOverlayFile.defaultPath(modelDirectory: components.directory)
        try self.init(components: components, store: FileKeywordStore(overlayPath: path), applyOverlay: applyOverlay,
                      autoAcceptPrecision: autoAcceptPrecision)
    }
}
