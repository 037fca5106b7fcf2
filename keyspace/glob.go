package keyspace

// Match reports whether s matches the glob pattern as Redis's
// stringmatchlen (util.c) decides it, for KEYS and SCAN MATCH: '*', '?',
// '[...]' with '^' and ranges (reversed ranges allowed), and '\' escapes.
// Bytes compare as C's signed chars do, which matters only in ranges.
func Match(pattern []byte, s string) bool {
	skip := false
	return match(pattern, s, &skip, 0)
}

// maxNesting bounds the recursion each '*' adds, as Redis does since the
// fix for CVE-2024-31228 (Debian's 7.0.15 has it): a match that would need
// to go deeper fails, however the rest of the pattern reads.
const maxNesting = 1000

// at returns p[i], or 0 past the end: Redis's patterns are NUL-terminated
// and stringmatchlen peeks one byte past the last in places.
func at(p []byte, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

// match is stringmatchlen_impl. skipLonger is Redis's fix for exponential
// backtracking (CVE-2022-36021): once the rest of the pattern matched
// nowhere, longer matches of an earlier '*' cannot help. nesting counts the
// '*' recursions above this call.
func match(p []byte, s string, skipLonger *bool, nesting int) bool {
	if nesting > maxNesting {
		return false
	}
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if match(p[1:], s, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := at(p, 0) == '^'
			if not {
				p = p[1:]
			}
			matched := false
			for {
				if at(p, 0) == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						matched = true
					}
				} else if at(p, 0) == ']' {
					break
				} else if len(p) == 0 {
					// Unterminated class: step back so the p[1:] below
					// leaves the pattern empty.
					p = []byte{0}
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi, c := int8(p[0]), int8(p[2]), int8(s[0])
					if lo > hi {
						lo, hi = hi, lo
					}
					p = p[2:]
					if c >= lo && c <= hi {
						matched = true
					}
				} else if p[0] == s[0] {
					matched = true
				}
				p = p[1:]
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}
