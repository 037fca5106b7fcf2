package server

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/minilock/minilock/internal/redisstr"
)

// LOLWUT (lolwut.c, lolwut5.c, lolwut6.c): Redis 7.0's own is its version
// line; VERSION 5 draws Georg Nees's Schotter in braille, VERSION 6 a
// skyline in terminal colours. Both are random on every call in Redis
// (rand()), so only their shape can match; the arithmetic, float32 where
// Redis's is float, is Redis's, so a Schotter of at most two rows of
// squares (no randomness) is Redis's byte for byte.

// cmdLolwut is LOLWUT [VERSION v] [version's arguments].
func cmdLolwut(x *call, args [][]byte) error {
	v := Version
	if len(args) >= 3 && redisstr.Option(args[1], "version") {
		n, err := intArg(args[2])
		if err != nil {
			return err
		}
		// snprintf("%u.0.0", (unsigned int)ver): only the first three
		// characters are read.
		v = itoa(int64(uint32(n))) + ".0.0"
		args = args[2:]
	}
	var out string
	var err error
	switch {
	case (v[0] == '5' && v[1] == '.' && v[2] != '9') || (v[0] == '4' && v[1] == '.' && v[2] == '9'):
		out, err = lolwut5(args)
	case (v[0] == '6' && v[1] == '.' && v[2] != '9') || (v[0] == '5' && v[1] == '.' && v[2] == '9'):
		out, err = lolwut6(args)
	default:
		out = "Redis ver. " + Version + "\n"
	}
	if err != nil {
		return err
	}
	x.W.Verbatim("txt", out)
	return nil
}

// lolwutArgs reads up to len(defs) optional integer arguments after
// args[0], each clamped to [1, max].
func lolwutArgs(args [][]byte, defs []int64, maxes []int64) ([]int64, error) {
	out := append([]int64(nil), defs...)
	for i := range out {
		if len(args) > i+1 {
			n, err := intArg(args[i+1])
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		out[i] = min(max(out[i], 1), maxes[i])
	}
	return out, nil
}

// crand is C's rand(): 0 to RAND_MAX.
func crand() int32 { return rand.Int32() }

const randMax = math.MaxInt32

// canvas is lwCanvas: a grid of colours.
type canvas struct {
	w, h   int
	pixels []byte
}

func newCanvas(w, h int, bg byte) *canvas {
	c := &canvas{w: w, h: h, pixels: make([]byte, w*h)}
	for i := range c.pixels {
		c.pixels[i] = bg
	}
	return c
}

func (c *canvas) set(x, y int, color byte) {
	if x < 0 || x >= c.w || y < 0 || y >= c.h {
		return
	}
	c.pixels[x+y*c.w] = color
}

func (c *canvas) get(x, y int) byte {
	if x < 0 || x >= c.w || y < 0 || y >= c.h {
		return 0
	}
	return c.pixels[x+y*c.w]
}

// line is lwDrawLine, Bresenham's.
func (c *canvas) line(x1, y1, x2, y2 int, color byte) {
	dx, dy := abs(x2-x1), abs(y2-y1)
	sx, sy := -1, -1
	if x1 < x2 {
		sx = 1
	}
	if y1 < y2 {
		sy = 1
	}
	err := dx - dy
	for {
		c.set(x1, y1, color)
		if x1 == x2 && y1 == y2 {
			return
		}
		e2 := err * 2
		if e2 > -dy {
			err -= dy
			x1 += sx
		}
		if e2 < dx {
			err += dx
			y1 += sy
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// square is lwDrawSquare: a square of side size centred at x, y, turned
// by angle.
func (c *canvas) square(x, y int, size, angle float32, color byte) {
	size = float32(float64(size) / 1.4142135623)
	size = float32(math.Round(float64(size)))
	var px, py [4]int
	k := float32(math.Pi/4 + float64(angle))
	for j := range 4 {
		px[j] = int(math.Round(math.Sin(float64(k))*float64(size) + float64(x)))
		py[j] = int(math.Round(math.Cos(float64(k))*float64(size) + float64(y)))
		k = float32(float64(k) + math.Pi/2)
	}
	for j := range 4 {
		c.line(px[j], py[j], px[(j+1)%4], py[(j+1)%4], color)
	}
}

// lolwut5 is LOLWUT VERSION 5 [cols [squares-per-row [squares-per-col]]].
func lolwut5(args [][]byte) (string, error) {
	p, err := lolwutArgs(args, []int64{66, 8, 12}, []int64{1000, 200, 200})
	if err != nil {
		return "", err
	}
	c := schotter(int(p[0]), int(p[1]), int(p[2]))
	var b strings.Builder
	for y := 0; y < c.h; y += 4 {
		for x := 0; x < c.w; x += 2 {
			var bits rune
			for i, d := range [8][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}} {
				if c.get(x+d[0], y+d[1]) != 0 {
					bits |= 1 << i
				}
			}
			b.WriteRune(0x2800 + bits) // braille: 2x4 dots a character
		}
		if y != c.h-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. " + Version + "\n")
	return b.String(), nil
}

// schotter is lwDrawSchotter.
func schotter(cols, perRow, perCol int) *canvas {
	width := cols * 2
	padding := 0
	if width > 4 {
		padding = 2
	}
	side := float32(width-padding*2) / float32(perRow)
	height := int(side*float32(perCol) + float32(padding*2))
	c := newCanvas(width, height, 0)
	for y := range perCol {
		for x := range perRow {
			sx := int(float32(x)*side + side/2 + float32(padding))
			sy := int(float32(y)*side + side/2 + float32(padding))
			var angle float32
			if y > 1 {
				r1 := float32(crand()) / float32(randMax) / float32(perCol) * float32(y)
				r2 := float32(crand()) / float32(randMax) / float32(perCol) * float32(y)
				r3 := float32(crand()) / float32(randMax) / float32(perCol) * float32(y)
				if crand()%2 != 0 {
					r1 = -r1
				}
				if crand()%2 != 0 {
					r2 = -r2
				}
				if crand()%2 != 0 {
					r3 = -r3
				}
				angle = r1
				sx = int(float32(sx) + r2*side/3)
				sy = int(float32(sy) + r3*side/3)
			}
			c.square(sx, sy, side, angle, 1)
		}
	}
	return c
}

// lolwut6 is LOLWUT VERSION 6 [cols [rows]].
func lolwut6(args [][]byte) (string, error) {
	p, err := lolwutArgs(args, []int64{80, 20}, []int64{1000, 1000})
	if err != nil {
		return "", err
	}
	c := newCanvas(int(p[0]), int(p[1]), 3)
	skyline(c)
	escapes := [4]string{"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"}
	var b strings.Builder
	for y := range c.h {
		for x := range c.w {
			b.WriteString("\033[" + escapes[c.get(x, y)&3] + " \033[0m")
		}
		if y != c.h-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nDedicated to the 8 bit game developers of past and present.\n" +
		"Original 8 bit image from Plaguemon by hikikomori. Redis ver. " + Version + "\n")
	return b.String(), nil
}

// skyscraper is lolwut6.c's: where, how big, with windows or not, and its
// colour.
type skyscraper struct {
	xoff, width, height int
	windows             bool
	color               byte
}

// draw is generateSkyscraper.
func (s skyscraper) draw(c *canvas) {
	starty := c.h - 1
	endy := starty - s.height + 1
	for y := starty; y >= endy; y-- {
		for x := s.xoff; x < s.xoff+s.width; x++ {
			if y == endy && (x <= s.xoff+1 || x >= s.xoff+s.width-2) {
				continue // the roof is four pixels narrower
			}
			color := s.color
			if s.windows && x > s.xoff+1 && x < s.xoff+s.width-2 && y > endy+1 && y < starty-1 {
				relx, rely := x-(s.xoff+1), y-(endy+1)
				if relx/2%2 != 0 && rely%2 != 0 {
					for color == s.color {
						color = byte(1 + crand()%2)
					}
					if relx%2 != 0 {
						color = c.get(x-1, y)
					}
				}
			}
			c.set(x, y, color)
		}
	}
}

// skyline is generateSkyline.
func skyline(c *canvas) {
	for color := byte(2); color >= 1; color-- {
		for offset := -10; offset < c.w; {
			offset += int(crand() % 8)
			s := skyscraper{xoff: offset, width: 10 + int(crand()%9), color: color}
			if color == 2 {
				s.height = c.h/2 + int(crand())%c.h/2
			} else {
				s.height = c.h/2 + int(crand())%c.h/3
			}
			s.draw(c)
			if color == 2 {
				offset += s.width / 2
			} else {
				offset += s.width + 1
			}
		}
	}
	for offset := -10; offset < c.w; {
		offset += int(crand() % 8)
		s := skyscraper{xoff: offset, width: 5 + int(crand()%14), windows: true}
		if s.width%4 != 0 {
			s.width += s.width % 3
		}
		s.height = c.h/3 + int(crand())%c.h/2
		s.draw(c)
		offset += s.width + 5
	}
}
