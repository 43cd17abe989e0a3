// A prepared entry of the varieties table the lexical matcher maps variety and brand names through.

/// One entry of the varieties table, prepared: a variety/brand name and the keyword it stands for.
public struct VarietyEntry: Sendable {
    public var variety: LexicalText
    public var target: LexicalText
    /// The value of the `variety` feature when this entry matches: 1, or the model's brand evidence scale for a
    /// brand or product-line row (see `ModelComponents.varietyEntries`).
    public var weight: Float
    public init(variety: LexicalText, target: LexicalText, weight: Float = 1) {
        self.variety = variety
        self.target = target
        self.weight = weight
    }
}
