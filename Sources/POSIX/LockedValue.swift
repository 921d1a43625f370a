/// A value shared between tasks, behind a lock.
public final class LockedValue<T: Sendable>: Sendable {
  private let mutex: Locked<T>
  public init(_ value: T) { mutex = Locked(value) }
  public var value: T { mutex.withLock { $0 } }
  public func set(_ value: T) { mutex.withLock { $0 = value } }
}
