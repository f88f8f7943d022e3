package main

import (
	"math"
	"os"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// margin is the blank space around a figure and between its parts.
var margin = vg.Points(8)

// save draws p into the file name, w wide and h high, in the format its
// extension names: its title across the whole width at the top, its data
// and axes below on the left, and its legend to the right of them, outside
// the data, so that no line or bar is hidden under it. The figure is
// widened when the title would not fit.
func save(p *plot.Plot, name string, w, h vg.Length) error {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	title, yLabel := p.Title.Text, p.Y.Label.Text
	p.Title.Text, p.Y.Label.Text = "", ""
	defer func() { p.Legend, p.Title.Text, p.Y.Label.Text = leg, title, yLabel }()

	var legendW vg.Length
	if r := leg.Rectangle(draw.Canvas{}); r.Size().X > 0 {
		legendW = r.Size().X + 2*margin
	}
	titleW := p.Title.TextStyle.Rectangle(title).Size().X
	w = max(w, titleW+2*margin)

	ext := strings.TrimPrefix(name[strings.LastIndex(name, "."):], ".")
	c, err := draw.NewFormattedCanvas(w, h, ext)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	titleH := p.Title.TextStyle.Rectangle(title).Size().Y
	if title != "" {
		style := p.Title.TextStyle
		style.XAlign, style.YAlign = draw.XCenter, draw.YTop
		dc.FillText(style, vg.Point{X: dc.Center().X, Y: dc.Max.Y - margin}, title)
		titleH += margin
	}
	// The Y axis's label is drawn here, not by the plot: gonum pads the
	// data's top by about the length of a rotated label.
	var labelW vg.Length
	if yLabel != "" {
		labelW = p.Y.Label.TextStyle.Height(yLabel) + p.Y.Label.Padding
	}
	area := draw.Crop(dc, margin+labelW, -margin-legendW, margin, -margin-titleH)
	p.Draw(area)
	if yLabel != "" {
		sty := p.Y.Label.TextStyle
		sty.Rotation += math.Pi / 2
		descent := sty.FontExtents().Descent
		x := dc.Min.X + margin + p.Y.Label.TextStyle.Height(yLabel) - descent
		data := p.DataCanvas(area)
		dc.FillText(sty, vg.Point{X: x, Y: data.Center().Y}, yLabel)
	}
	if legendW > 0 {
		leg.Top, leg.Left, leg.Padding = true, true, vg.Points(3)
		data := p.DataCanvas(area)
		la := draw.Canvas{Canvas: dc, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + margin, Y: data.Min.Y},
			Max: vg.Point{X: dc.Max.X - margin, Y: data.Max.Y},
		}}
		leg.Draw(la)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
