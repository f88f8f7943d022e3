package main

import (
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The strategies charted, with the recipe each replaces.
var kinds = []struct {
	kind, title string
	logY        bool // a ceiling (the Counter's, with group commit) or numbers a second (Block's) orders above the recipe's
}{
	{"counter", "Counter.Next vs the raw UpdateItem ADD loop", true},
	{"block", "Block.Next vs the raw UpdateItem ADD loop", true},
	{"sortkey", "SortKey.Append vs Query + conditional Put", false},
	{"latest", "Latest.Append vs the hand-written transaction loop", false},
}

// sweepForm is the throttle form the writers sweep runs in.
const sweepForm = "ondemand"

var (
	libColor    = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} // blue
	recipeColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff} // red
	greyColor   = color.RGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff}
	dotted      = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
)

// sides are the two rows of a pair, as benchmarks and charts name them.
var sides = []struct {
	side, label string
	color       color.Color
}{
	{"dynamoseq", "dynamoseq", libColor},
	{"baseline", "recipe", recipeColor},
}

// drawAll writes every chart into out and returns the files' names.
func drawAll(results map[key]result, out, ext string) ([]string, error) {
	var files []string
	write := func(p *plot.Plot, name string, w, h vg.Length) error {
		if p == nil {
			return nil
		}
		f := filepath.Join(out, name+ext)
		files = append(files, f)
		return save(p, f, w, h)
	}
	for _, k := range kinds {
		ws := writers(results, k.kind)
		if len(ws) == 0 {
			continue
		}
		if err := write(throughput(results, k.kind, k.title, k.logY, ws), "throughput-"+k.kind, 18*vg.Centimeter, 9*vg.Centimeter); err != nil {
			return nil, err
		}
		if err := write(latency(results, k.kind, k.title, ws), "latency-"+k.kind, 18*vg.Centimeter, 9*vg.Centimeter); err != nil {
			return nil, err
		}
	}
	for _, c := range barCharts {
		if err := write(bars(results, c.unit, c.title, c.yLabel), c.file, 24*vg.Centimeter, 10*vg.Centimeter); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// writers returns the writer counts of a kind's sweep, in order.
func writers(results map[key]result, kind string) []int {
	var ws []int
	for k := range results {
		n, ok := strings.CutPrefix(k.shape, "writers=")
		if k.kind != kind || k.form != sweepForm || !ok {
			continue
		}
		if w, err := strconv.Atoi(n); err == nil && !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	return ws
}

// point is a row's median of a metric, and the least and the most of its
// windows.
type point struct{ x, y, lo, hi float64 }

// points is a series of points: a plotter.XYer and a plotter.YErrorer.
type points []point

func (ps points) Len() int                        { return len(ps) }
func (ps points) XY(i int) (float64, float64)     { return ps[i].x, ps[i].y }
func (ps points) YError(i int) (float64, float64) { return ps[i].y - ps[i].lo, ps[i].hi - ps[i].y }

// series returns the points (writers, metric) of one side of a kind's
// sweep, leaving out the writer counts where the metric is missing.
func series(results map[key]result, kind, side, unit string, ws []int) points {
	var ps points
	for _, w := range ws {
		r := results[key{kind, sweepForm, "writers=" + strconv.Itoa(w), side}]
		if v, ok := r.median(unit); ok && v > 0 {
			lo, hi := r.spread(unit)
			ps = append(ps, point{float64(w), v, lo, hi})
		}
	}
	return ps
}

// newSweepPlot is a plot with the writers on a log2 X axis.
func newSweepPlot(title, yLabel string, ws []int) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "goroutines writing one hot name"
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, w := range ws {
		ticks = append(ticks, plot.Tick{Value: float64(w), Label: strconv.Itoa(w)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = float64(ws[0])/1.2, float64(ws[len(ws)-1])*1.2
	p.Add(plotter.NewGrid())
	return p
}

// addLine adds the medians as a line with points, in a colour and a dash
// pattern, with a whisker from the least to the most of each point's
// windows, and reports whether there was any point.
func addLine(p *plot.Plot, ps points, label string, c color.Color, dashes []vg.Length) bool {
	if len(ps) == 0 {
		return false
	}
	l, s, err := plotter.NewLinePoints(ps)
	if err != nil {
		return false
	}
	l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.5)
	s.Color, s.Shape = c, draw.CircleGlyph{}
	p.Add(l, s)
	if e, err := plotter.NewYErrorBars(ps); err == nil {
		e.Color, e.Width = c, vg.Points(1)
		p.Add(e)
	}
	p.Legend.Add(label, l, s)
	return true
}

// throughput is the chart of numbers stored a second against writers,
// the library's beside its recipe's; nil when there is no point.
func throughput(results map[key]result, kind, title string, logY bool, ws []int) *plot.Plot {
	p := newSweepPlot(title, "numbers stored a second", ws)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	} else {
		p.Y.Min = 0
		p.Y.Tick.Marker = plainTicks{}
	}
	drawn := false
	for _, s := range sides {
		drawn = addLine(p, series(results, kind, s.side, "ops/s", ws), s.label, s.color, nil) || drawn
	}
	if !drawn {
		return nil
	}
	p.Y.Max *= 1.08 // room above the highest whisker
	if logY {
		p.Y.Max *= 1.4
	}
	addRangeNote(p)
	return p
}

// plainTicks are the default ticks, labelled without trailing zeros.
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// latency is the chart of the p50 and p99 latency against writers; nil
// when there is no point.
func latency(results map[key]result, kind, title string, ws []int) *plot.Plot {
	p := newSweepPlot(title, "latency of a call (ms)", ws)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	drawn := false
	for _, s := range sides {
		drawn = addLine(p, series(results, kind, s.side, "p50-ms", ws), s.label+" p50", s.color, nil) || drawn
		drawn = addLine(p, series(results, kind, s.side, "p99-ms", ws), s.label+" p99", s.color, dotted) || drawn
	}
	if !drawn {
		return nil
	}
	p.Y.Max *= 2 // room above the highest whisker
	addRangeNote(p)
	return p
}

// addRangeNote adds the legend's entries that say what a point and its
// whisker are.
func addRangeNote(p *plot.Plot) {
	p.Legend.Add("point: median of the windows", noteThumb{point: true})
	p.Legend.Add("whisker: least to most", noteThumb{})
}

// noteThumb is a grey legend thumbnail: a point, or a whisker.
type noteThumb struct{ point bool }

func (n noteThumb) Thumbnail(c *draw.Canvas) {
	x, y := c.Center().X, c.Center().Y
	if n.point {
		c.DrawGlyph(draw.GlyphStyle{Color: greyColor, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}, vg.Point{X: x, Y: y})
		return
	}
	ls := draw.LineStyle{Color: greyColor, Width: vg.Points(1)}
	lo, hi := c.Min.Y+vg.Points(1), c.Max.Y-vg.Points(1)
	c.StrokeLine2(ls, x, lo, x, hi)
	c.StrokeLine2(ls, x-vg.Points(3), lo, x+vg.Points(3), lo)
	c.StrokeLine2(ls, x-vg.Points(3), hi, x+vg.Points(3), hi)
}

// logTicks are ticks for a log axis: 1, 2 and 5 of each decade labelled
// (only 1 when the axis spans more than two decades), the other digits
// unlabelled.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	wide := math.Log10(max/min) > 2.2
	var ticks []plot.Tick
	for d := math.Floor(math.Log10(min)); d <= math.Ceil(math.Log10(max)); d++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, d)
			if v < min*0.999 || v > max*1.001 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || !wide && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
