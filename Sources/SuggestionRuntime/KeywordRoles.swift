// What a keyword's category says it is in a product name: a flavour or ingredient products are named after, or a
// kind of product.
import KeywordIndex
import ModelStorage

/// The part each keyword plays in a product name, read from the model directory's `keyword-categories.tsv`
/// (`NameHead` reads it). A packaged product's name often gives its kind, or a brand of it, first and its flavour
/// in a phrase after it: 「ﾎﾟﾃﾁ ｺﾝｿﾒ」, 「飲むヨーグルト 900g ブルーベリー」, 「キリン 氷結 シチリア産レモン」. A fruit, a
/// seasoning or a spice named in that later phrase is the flavour, and the processed product named before it is
/// the kind. Fresh foods (野菜, 魚介, 肉) are neither: 「しろうり 漬物 奈良漬」 names the vegetable first and the
/// product after. A keyword without a category (one a team added) plays no part.
public struct KeywordRoles: Sendable {
    public enum Role: Sendable, Equatable {
        /// Named as a flavour or ingredient of a product (果物, 調味料, 香辛料・ハーブ, ナッツ・種実, 砂糖・甘味料).
        case flavour
        /// A kind of processed product (菓子・デザート, 飲料・酒, 乳製品, 加工食品, …).
        case kind
        case other
    }

    public static let flavourCategories: Set<String> = ["果物", "調味料", "香辛料・ハーブ", "ナッツ・種実", "砂糖・甘味料"]
    public static let kindCategories: Set<String> = [
        "菓子・デザート", "飲料・酒", "乳製品", "加工食品", "穀物・麺・パン", "惣菜・加工食品", "冷凍食品", "豆・大豆製品",
        "魚介加工品", "肉加工品",
    ]

    private let roles: [String: Role]

    /// From keyword → category (`ModelFiles.keywordCategories`).
    public init(categories: [String: String]) {
        var roles: [String: Role] = [:]
        for (keyword, category) in categories {
            if Self.flavourCategories.contains(category) {
                roles[keyword] = .flavour
            } else if Self.kindCategories.contains(category) {
                roles[keyword] = .kind
            }
        }
        self.roles = roles
    }

    /// The roles of `model`'s categories.
    public init(model: LoadedModel) { self.init(categories: model.categories) }

    /// No keyword plays a part: the order is the one the name's writing gives.
    public static let none = KeywordRoles(categories: [:])

    public func role(of keyword: String) -> Role { roles[keyword] ?? .other }

    /// The role of keyword `k` of `index`.
    func role(_ k: Int, in index: KeywordIndex) -> Role {
        roles.isEmpty ? .other : role(of: index.entries[k].keyword)
    }
}
