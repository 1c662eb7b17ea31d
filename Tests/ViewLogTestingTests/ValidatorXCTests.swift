import XCTest
import ViewLog
import ViewLogTesting

// This file imports XCTest, not Testing: `ChangeSetValidator.check` must compile and throw here (issue 38 —
// it was `error: no macro named '_sourceLocation'`).
final class ValidatorXCTests: XCTestCase {
    func testCheckThrowsEveryProblemOutsideSwiftTesting() throws {
        typealias V = ChangeSetValidatorTests
        XCTAssertNoThrow(try ChangeSetValidator.check(V.valid, from: V.before, to: V.after))
        XCTAssertThrowsError(try ChangeSetValidator.check(TestingHelpersTests.wrong, from: V.before, to: V.after)) { error in
            guard let failure = error as? ChangeSetValidationError else {
                return XCTFail("expected a ChangeSetValidationError, got \(error)")
            }
            XCTAssertEqual(failure.problems, ChangeSetValidator.validate(TestingHelpersTests.wrong, from: V.before, to: V.after)
                + ChangeSetValidator.validateSequential(TestingHelpersTests.wrong, from: V.before, to: V.after))
            XCTAssertFalse(failure.problems.isEmpty)
            XCTAssertEqual(error.localizedDescription, failure.description)
        }
        XCTAssertTrue(ChangeSetValidator.expectValid(V.valid, from: V.before, to: V.after))
        XCTAssertFalse(ChangeSetValidator.expectValid(TestingHelpersTests.wrong, from: V.before, to: V.after))
    }
}
