import Foundation
import ViewLog

/// The app's model: a plain `Codable` struct that names its entity.
public struct Employee: EntityType, Equatable, Sendable {
    public static let entityName = "Employee"
    public var id: String
    public var name: String
    public var height: Int?
    public var sectionName: String
    public var hired: Date?

    public init(id: String, name: String, height: Int? = nil, sectionName: String = "", hired: Date? = nil) {
        self.id = id
        self.name = name
        self.height = height
        self.sectionName = sectionName
        self.hired = hired
    }
}

/// The app's schema, as the command line would take it from a file.
public let directorySchemaText = """
    {"entities": {"Employee": {"id": "string", "attributes": {
      "name": {"type": "string"}, "height": {"type": "int", "optional": true},
      "sectionName": {"type": "string", "default": ""}, "hired": {"type": "date", "optional": true}}}},
     "views": {"tall": {"entity": "Employee", "where": "height > 170", "sort": "sectionName, name", "section": "sectionName"}}}
    """
