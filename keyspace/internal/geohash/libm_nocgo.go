//go:build !cgo

package geohash

import "github.com/minilock/minilock/internal/cmath"

// Distance is geohashGetDistance, the haversine distance in metres.
func Distance(lon1, lat1, lon2, lat2 float64) float64 { return distanceGo(lon1, lat1, lon2, lat2) }

func libCos(x float64) float64 { return cmath.Cos(x) }
