/// The attribute values of one object, by attribute name. Inserts and deletes carry every attribute of the
/// entity (after defaults); updates carry only the attributes they set.
public typealias ObjectValues = [String: Value]
