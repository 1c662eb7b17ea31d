@_spi(Engine) @testable import ViewLog
@_spi(Engine) @testable import ViewLogModel
@_spi(Engine) @testable import ViewLogQuery
@_spi(Engine) @testable import ViewLogStore
@_spi(Engine) @testable import ViewLogViews

/// The schema of DESIGN §2, shared by the JSON and append-input tests.
enum Fixtures {
    static let employeesJSON = """
        {
          "entities": {
            "Employee": {
              "id": "string",
              "attributes": {
                "name":        { "type": "string" },
                "height":      { "type": "int", "optional": true },
                "sectionName": { "type": "string", "default": "" },
                "salary":      { "type": "double", "default": 0 },
                "active":      { "type": "bool", "default": true },
                "hired":       { "type": "date", "optional": true }
              }
            },
            "Badge": { "id": "int", "attributes": { "label": { "type": "string", "optional": true } } }
          },
          "views": {
            "tall": { "entity": "Employee", "where": "height > 170",
                      "sort": "sectionName, height desc, name", "section": "sectionName" }
          }
        }
        """

    static let employees: Schema = {
        do { return try Schema(jsonText: employeesJSON) } catch { preconditionFailure("fixture schema: \(error)") }
    }()
}
