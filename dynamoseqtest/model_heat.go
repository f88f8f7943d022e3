package dynamoseqtest

import "time"

// maxSplits is how many times split for heat doubles a partition key
// value's capacity at most: a choice of the model, as AWS publishes none.
const maxSplits = 3

// heatState is what split for heat (Service.SplitAfter) knows of a
// partition key value.
type heatState struct {
	split    float64   // its capacity's multiplier: 1, 2, 4, 8; 0 reads as 1
	splits   int       // times it has split
	hotSince time.Time // throttled since, without its bucket filling up; zero: cool
	hotItem  string    // an item requested while hot
	spread   bool      // another item was requested while hot
}

// heat follows a partition key value's heat after a request on it was
// admitted or refused (refused), its bucket full or not (full), and
// splits it once it has been hot for SplitAfter with requests on two
// items or more: one item cannot be split. m.mu must be held.
func (m *model) heat(p *partState, req *request, refused, full bool, now time.Time) {
	if m.rules.splitAfter == 0 {
		return
	}
	h := &p.heatState
	switch {
	case full && !refused:
		h.hotSince, h.hotItem, h.spread = time.Time{}, "", false
		return
	case refused && h.hotSince.IsZero():
		h.hotSince = now
	case h.hotSince.IsZero():
		return
	}
	for i := range req.targets {
		if t := &req.targets[i]; t.item != "" && m.part(t) == p {
			if h.hotItem == "" {
				h.hotItem = t.item
			}
			h.spread = h.spread || t.item != h.hotItem
		}
	}
	if h.spread && h.splits < maxSplits && now.Sub(h.hotSince) >= m.rules.splitAfter {
		h.split = 2 * max(1, h.split)
		h.splits++
		h.hotSince, h.hotItem, h.spread = now, "", false
	}
}
