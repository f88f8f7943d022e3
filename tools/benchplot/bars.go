package main

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barCharts are the bar charts of the 16-writer rows: useful work, the
// numbers stored, never the units spent (a recipe that spends its units on
// failed conditional writes would read as the better one).
var barCharts = []struct {
	unit, file, title, yLabel string
}{
	{"ops/s", "numbers-per-second", "Numbers stored a second, 16 writers on one hot name (higher is better)", "numbers stored a second (log)"},
	{"numbers/wu", "numbers-per-unit", "Numbers stored per write unit, 16 writers on one hot name (higher is better)", "numbers stored per write unit (log)"},
}

// barShapes are the shapes of the bar charts' rows, with their labels.
var barShapes = []struct{ shape, label string }{
	{"writers=16", "1 x 16"},
	{"processes=4x4", "4 x 4"},
}

// barRow is one group of bars: a strategy in one shape and form.
type barRow struct {
	kind, form, shape, label string
}

// barRows returns the 16-writer rows of the results, Block left out (its
// numbers are the machine's, not the partition's: see its own chart).
func barRows(results map[key]result) []barRow {
	var rows []barRow
	for _, k := range kinds {
		if k.kind == "block" {
			continue
		}
		for _, s := range barShapes {
			for _, form := range []string{"ondemand", "provisioned"} {
				if _, ok := results[key{k.kind, form, s.shape, "dynamoseq"}]; !ok {
					continue
				}
				label := k.kind + "\n" + s.label + "\n" + map[string]string{"ondemand": "on-demand", "provisioned": "provisioned"}[form]
				rows = append(rows, barRow{k.kind, form, s.shape, label})
			}
		}
	}
	return rows
}

// bars is a bar chart of one metric of the 16-writer rows, recipe beside
// library, each bar the median of the row's windows with a whisker from
// their least to their most and its value written above; nil when there
// is no row.
func bars(results map[key]result, unit, title, yLabel string) *plot.Plot {
	rows := barRows(results)
	if len(rows) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.X.Label.Text = "strategy, processes x goroutines, throttle form; bar: median of the bucket depths and seeds, whisker: least to most"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.Add(plotter.NewGrid())
	for i, s := range []struct {
		side, label string
		color       color.Color
	}{{"baseline", "recipe", recipeColor}, {"dynamoseq", "dynamoseq", libColor}} {
		b := &rangeBars{color: s.color, offset: 0.22 * (2*float64(i) - 1), width: 0.4}
		for _, r := range rows {
			res := results[key{r.kind, r.form, r.shape, s.side}]
			v, _ := res.median(unit)
			lo, hi := res.spread(unit)
			b.bars = append(b.bars, point{y: v, lo: lo, hi: hi})
		}
		p.Add(b)
		p.Legend.Add(s.label, b)
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.label
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(rows))-0.5
	p.X.Tick.Label.YAlign = draw.YTop
	lo, hi := math.Inf(1), 0.0
	for _, pl := range []string{"baseline", "dynamoseq"} {
		for _, r := range rows {
			a, b := results[key{r.kind, r.form, r.shape, pl}].spread(unit)
			if a > 0 {
				lo = math.Min(lo, a)
			}
			hi = math.Max(hi, b)
		}
	}
	if math.IsInf(lo, 1) {
		return nil // nothing above 0 to draw on a log axis
	}
	p.Y.Min, p.Y.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi*3)))
	return p
}

// rangeBars draws bars at 0, 1, ... on a nominal X axis, moved by offset
// and width wide (in data units), from the bottom of the Y axis to each
// point's y, with a whisker from lo to hi and y written above it.
type rangeBars struct {
	bars          []point
	color         color.Color
	offset, width float64
}

// Plot implements plot.Plotter.
func (b *rangeBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	style := plot.New().Legend.TextStyle
	style.Font.Size = vg.Points(8)
	style.XAlign, style.YAlign = draw.XCenter, draw.YBottom
	for i, pt := range b.bars {
		if pt.y <= 0 {
			continue
		}
		x0, x1 := trX(float64(i)+b.offset-b.width/2), trX(float64(i)+b.offset+b.width/2)
		y0, y := trY(p.Y.Min), trY(pt.y)
		c.SetColor(b.color)
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y}}.Path())
		xm := (x0 + x1) / 2
		ls := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		lo, hi := trY(pt.lo), trY(pt.hi)
		c.StrokeLine2(ls, xm, lo, xm, hi)
		c.StrokeLine2(ls, xm-vg.Points(3), lo, xm+vg.Points(3), lo)
		c.StrokeLine2(ls, xm-vg.Points(3), hi, xm+vg.Points(3), hi)
		c.FillText(style, vg.Point{X: xm, Y: max(hi, y) + vg.Points(2)}, label(pt.y))
	}
}

// label writes a bar's value with two or three significant figures.
func label(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// Thumbnail implements plot.Thumbnailer: a filled square of the bars'
// colour in the legend.
func (b *rangeBars) Thumbnail(c *draw.Canvas) {
	c.SetColor(b.color)
	c.Fill(c.Rectangle.Path())
}
