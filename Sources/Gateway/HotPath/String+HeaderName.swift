extension String {
    /// Whether this is `lowercase` (ASCII letters, digits and `-`, as header names and tokens
    /// are), ignoring case — without lowercasing a copy.
    func isHeaderName(_ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return utf8.count == expected.count
            && utf8.elementsEqual(expected) { byte, wanted in
                byte == wanted || (byte | 0x20) == wanted && wanted >= 0x61
            }
    }
}
