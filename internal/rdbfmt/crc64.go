package rdbfmt

// Redis's CRC64 (crc64.c): the Jones polynomial, reflected, initial value
// 0 and no final xor; crc64(0, "123456789") is 0xe9c6d914c4b8d9ca.

var crcTable = func() (t [256]uint64) {
	const poly = 0x95ac9329ac4bc9b5 // 0xad93d23594c935a9 reflected
	for i := range t {
		c := uint64(i)
		for j := 0; j < 8; j++ {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC64 continues crc over b.
func CRC64(crc uint64, b []byte) uint64 {
	for _, c := range b {
		crc = crcTable[byte(crc)^c] ^ crc>>8
	}
	return crc
}
