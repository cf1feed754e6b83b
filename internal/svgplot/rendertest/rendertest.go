// Package rendertest renders a plot as a reviewer's viewer would, with
// rsvg-convert (Debian's librsvg2-bin, which .ci/run installs), and checks
// the picture: its size, that it is drawn on, and that the marks of given
// colours are there. Without rsvg-convert a test skips, except under CI
// (CI set), where it fails.
package rendertest

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PNG parses svg as XML, renders it with rsvg-convert and returns the
// picture; it is also written to dir/name.png for a person to look at when
// ABBENCH_PLOT_DIR names dir.
func PNG(t testing.TB, name string, svg []byte) image.Image {
	t.Helper()
	wellFormed(t, svg)
	tool, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rsvg-convert (librsvg2-bin) is missing; .ci/run installs it")
		}
		t.Skip("rsvg-convert not installed (apt-get install librsvg2-bin)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, "--format=png")
	cmd.Stdin = bytes.NewReader(svg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rsvg-convert: %v: %s", err, stderr.String())
	}
	if dir := os.Getenv("ABBENCH_PLOT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("rsvg-convert wrote no PNG: %v", err)
	}
	return img
}

// wellFormed fails unless svg parses as XML to its end.
func wellFormed(t testing.TB, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
}

// Check fails unless img is width x height, at least minInk of its pixels
// are not white, and each of marks (an opaque colour the plot draws with,
// "#d62728") covers at least a few pixels.
func Check(t testing.TB, img image.Image, width, height int, minInk float64, marks ...string) {
	t.Helper()
	b := img.Bounds()
	if b.Dx() != width || b.Dy() != height {
		t.Errorf("the PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	want := make([]color.RGBA, len(marks))
	for i, m := range marks {
		want[i] = hex(t, m)
	}
	found := make([]int, len(marks))
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			px := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
			if px.R < 245 || px.G < 245 || px.B < 245 {
				ink++
			}
			for i, w := range want {
				if near(px, w) {
					found[i]++
				}
			}
		}
	}
	if share := float64(ink) / float64(b.Dx()*b.Dy()); share < minInk {
		t.Errorf("the PNG is nearly blank: %.2f%% of its pixels drawn, want at least %.2f%%", 100*share, 100*minInk)
	}
	for i, n := range found {
		if n < 12 {
			t.Errorf("the PNG has %d pixel(s) of %s, want its marks", n, marks[i])
		}
	}
}

func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int { return max(int(x), int(y)) - min(int(x), int(y)) }
	return d(a.R, b.R) < 12 && d(a.G, b.G) < 12 && d(a.B, b.B) < 12
}

func hex(t testing.TB, s string) color.RGBA {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	if err != nil || len(s) != 7 {
		t.Fatalf("colour %q is not #rrggbb", s)
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}
