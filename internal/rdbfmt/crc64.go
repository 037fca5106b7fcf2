package rdbfmt

import "encoding/binary"

// Redis's CRC64 (crc64.c): the Jones polynomial, reflected, initial value
// 0 and no final xor; crc64(0, "123456789") is 0xe9c6d914c4b8d9ca.

// crcTables are the slicing-by-8 tables (Redis's crcspeed does the
// same): crcTables[0] is the byte-at-a-time table, crcTables[k] advances a
// byte's contribution by k more bytes. FUNCTION DUMP checksums its whole
// payload, 800 KB for 10,000 libraries.
var crcTables = func() (t [8][256]uint64) {
	const poly = 0x95ac9329ac4bc9b5 // 0xad93d23594c935a9 reflected
	for i := range t[0] {
		c := uint64(i)
		for j := 0; j < 8; j++ {
			if c&1 != 0 {
				c = c>>1 ^ poly
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range t[0] {
		for k := 1; k < 8; k++ {
			t[k][i] = t[k-1][i]>>8 ^ t[0][byte(t[k-1][i])]
		}
	}
	return t
}()

// CRC64 continues crc over b.
func CRC64(crc uint64, b []byte) uint64 {
	t := &crcTables
	for len(b) >= 8 {
		crc ^= binary.LittleEndian.Uint64(b)
		crc = t[7][byte(crc)] ^ t[6][byte(crc>>8)] ^ t[5][byte(crc>>16)] ^ t[4][byte(crc>>24)] ^
			t[3][byte(crc>>32)] ^ t[2][byte(crc>>40)] ^ t[1][byte(crc>>48)] ^ t[0][byte(crc>>56)]
		b = b[8:]
	}
	for _, c := range b {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return crc
}
