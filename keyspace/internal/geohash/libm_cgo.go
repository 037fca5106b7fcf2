//go:build cgo

package geohash

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

// With cgo the distance formula calls the C library's sin, cos and asin,
// as redis-server does: glibc's are correctly rounded in all but about one
// case in a thousand, and those are the cases where Redis's digits are
// glibc's. Without cgo, the correctly rounded versions stand in.

func libSin(x float64) float64  { return float64(C.sin(C.double(x))) }
func libCos(x float64) float64  { return float64(C.cos(C.double(x))) }
func libAsin(x float64) float64 { return float64(C.asin(C.double(x))) }
