@_spi(Engine) import ViewLogModel
@_spi(Engine) import ViewLogQuery
import LMDB

/// A value behind a lock: the package's one lock type (the LMDB module's), handed on to the layers above ViewLog,
/// which do not import LMDB.
@_spi(Engine) public typealias Locked = LMDB.Locked
