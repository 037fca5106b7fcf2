//go:build !cgo

package geohash

func libSin(x float64) float64  { return crSin(x) }
func libCos(x float64) float64  { return crCos(x) }
func libAsin(x float64) float64 { return crAsin(x) }
