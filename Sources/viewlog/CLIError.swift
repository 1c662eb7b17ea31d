/// An error of the command line itself (not of the library), printed as one `error: …` line.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    var exitCode: Int32 = 1

    init(_ description: String, exitCode: Int32 = 1) {
        self.description = description
        self.exitCode = exitCode
    }
}
