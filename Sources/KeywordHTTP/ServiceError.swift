// The error a start-up setting or the service as a whole fails with: its message is what the CLI prints.

/// A failure of the service as a whole: a setting `serve` cannot start with, or a model that could not be loaded.
public struct ServiceError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) {
        self.message = message
    }
    public var description: String { message }
}
