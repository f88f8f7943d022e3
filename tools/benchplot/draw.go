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
	dashed      = []vg.Length{vg.Points(5), vg.Points(3)}
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
	save := func(p *plot.Plot, name string, w, h vg.Length) error {
		f := filepath.Join(out, name+ext)
		files = append(files, f)
		return p.Save(w, h, f)
	}
	for _, k := range kinds {
		ws := writers(results, k.kind)
		if len(ws) == 0 {
			continue
		}
		if err := save(throughput(results, k.kind, k.title, k.logY, ws), "throughput-"+k.kind, 14*vg.Centimeter, 9*vg.Centimeter); err != nil {
			return nil, err
		}
		if err := save(latency(results, k.kind, k.title, ws), "latency-"+k.kind, 14*vg.Centimeter, 9*vg.Centimeter); err != nil {
			return nil, err
		}
	}
	if p := shares(results); p != nil {
		if err := save(p, "ceiling-share", 20*vg.Centimeter, 9*vg.Centimeter); err != nil {
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

// series returns the points (writers, metric) of one side of a kind's
// sweep, leaving out the writer counts where the metric is missing.
func series(results map[key]result, kind, side, unit string, ws []int) plotter.XYs {
	var xys plotter.XYs
	for _, w := range ws {
		r := results[key{kind, sweepForm, "writers=" + strconv.Itoa(w), side}]
		if v, ok := r.median(unit); ok && v > 0 {
			xys = append(xys, plotter.XY{X: float64(w), Y: v})
		}
	}
	return xys
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
	p.X.Min, p.X.Max = float64(ws[0])/1.15, float64(ws[len(ws)-1])*1.15
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// addLine adds a line with points, in a colour and a dash pattern, and
// raises the Y axis's top (p.Y.Max, which roomForLegend uses) to its
// highest point.
func addLine(p *plot.Plot, xys plotter.XYs, label string, c color.Color, dashes []vg.Length, points bool) {
	if len(xys) == 0 {
		return
	}
	for _, xy := range xys {
		p.Y.Max = math.Max(p.Y.Max, xy.Y)
	}
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return
	}
	l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.5)
	s.Color, s.Shape = c, draw.CircleGlyph{}
	if points {
		p.Add(l, s)
		p.Legend.Add(label, l, s)
		return
	}
	p.Add(l)
	p.Legend.Add(label, l)
}

// throughput is the chart of numbers a second against writers, both sides
// with their ceilings.
func throughput(results map[key]result, kind, title string, logY bool, ws []int) *plot.Plot {
	p := newSweepPlot(title, "numbers a second", ws)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	} else {
		p.Y.Min = 0
		p.Y.Tick.Marker = plainTicks{}
	}
	for _, s := range sides {
		addLine(p, series(results, kind, s.side, "ops/s", ws), s.label, s.color, nil, true)
	}
	for _, s := range sides {
		addLine(p, series(results, kind, s.side, "ceiling-ops/s", ws), s.label+"'s ceiling", s.color, dashed, false)
	}
	roomForLegend(p, logY)
	return p
}

// roomForLegend raises the top of the Y axis so that the legend, at the
// top left, stands above the lines.
func roomForLegend(p *plot.Plot, logY bool) {
	ymax := p.Y.Max
	if logY {
		p.Y.Max = ymax * 30
		return
	}
	p.Y.Max = ymax * 1.5
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

// latency is the chart of the p50 and p99 latency against writers.
func latency(results map[key]result, kind, title string, ws []int) *plot.Plot {
	p := newSweepPlot(title, "latency of a call (ms)", ws)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	for _, s := range sides {
		addLine(p, series(results, kind, s.side, "p50-ms", ws), s.label+" p50", s.color, nil, true)
		addLine(p, series(results, kind, s.side, "p99-ms", ws), s.label+" p99", s.color, dotted, true)
	}
	roomForLegend(p, true)
	return p
}

// shares is the bar chart of the share of the ceiling of each 16-writer
// row (one process, and 4 processes x 4), recipe beside dynamoseq.
func shares(results map[key]result) *plot.Plot {
	type row struct {
		k     key
		label string
	}
	var rows []row
	for _, k := range kinds {
		for _, form := range []string{"ondemand", "provisioned"} {
			for _, shape := range []string{"writers=16", "processes=4x4"} {
				if _, ok := results[key{k.kind, form, shape, "dynamoseq"}]; !ok {
					continue
				}
				label := k.kind
				if shape != "writers=16" {
					label += " 4x4"
				}
				if form != sweepForm {
					label += " prov."
				}
				rows = append(rows, row{key{k.kind, form, shape, ""}, label})
			}
		}
	}
	if len(rows) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = "Share of the ceiling of each write pattern, 16 writers on one hot name"
	p.Y.Label.Text = "% of the ceiling"
	p.Y.Min = 0
	p.Y.Tick.Marker = plainTicks{}
	p.Add(plotter.NewGrid())
	width := vg.Points(10)
	top := 100.0
	for i, s := range sides {
		vals := make(plotter.Values, len(rows))
		for j, r := range rows {
			k := r.k
			k.side = s.side
			vals[j], _ = results[k].median("ceiling-%")
			top = math.Max(top, vals[j])
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			continue
		}
		b.Color, b.LineStyle.Width = s.color, 0
		b.Offset = width * vg.Length(float64(i)-0.5)
		p.Add(b)
		p.Legend.Add(s.label, b)
	}
	full := plotter.NewFunction(func(float64) float64 { return 100 })
	full.Color, full.Dashes = greyColor, dashed
	p.Add(full)
	p.Legend.Add("the ceiling", full)
	p.Legend.Top = true
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.label
	}
	p.NominalX(names...)
	p.Y.Max = top * 1.3 // room for the legend above the bars
	return p
}
