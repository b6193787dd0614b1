package clientwatch

import "math/bits"

// A call on several keys reports one total per table. Its split over the
// keys follows what the client knows of each key's items:
//
//   - a Query or Scan page is charged for the sum of its items' sizes,
//     rounded once: it splits in proportion to the items' sizes;
//   - a batch or transaction is charged item by item: each key first gets
//     the least its items can have cost (min: a put's new size, a read
//     item's size, 1 unit for a delete or update whose old item the
//     client never sees), and what the total leaves over (the slack) goes
//     to the items of unknown size, then to those known only from below
//     (a put may replace a larger item), then to all. So
//     [delete of a 98-WCU item, put of 1, put of 5] = 104 WCU splits
//     98/1/5, not by weight 1:1:5.
//
// Where the slack cannot be pinned on one key, each key's bounds widen by
// how far its share may be off: its truth lies within [min, min + slack].

// splitWindow splits units over ps, the parts of one window, and returns
// per part how far below and above its share its truth may lie, in
// ps[i].below and ps[i].above.
func (r *recorder) splitWindow(ps []part, units uint64) {
	for i := range ps {
		ps[i].below, ps[i].above = 0, 0
	}
	if r.page {
		apportion(ps, units)
		return
	}
	var sum uint64
	for i := range ps {
		sum += ps[i].min
	}
	if sum > units {
		// The items' least costs exceed what DynamoDB charged: the model
		// does not fit (a price it charges differently). Split by them,
		// and let each key's truth lie anywhere in [0, units].
		distribute(ps, units, func(p *part) uint64 { return max(p.min, 1) }, true)
		for i := range ps {
			ps[i].below, ps[i].above = ps[i].share, units-ps[i].share
		}
		return
	}
	for i := range ps {
		ps[i].share = ps[i].min
	}
	slack := units - sum
	if slack == 0 {
		return
	}
	// The slack goes to the least known: items of no known size, else
	// those known from below, else all.
	least := sizeExact
	for i := range ps {
		least = max(least, ps[i].size)
	}
	distribute(ps, slack, func(p *part) uint64 {
		switch {
		case p.size != least:
			return 0
		case least == sizeUnknown:
			return 1
		}
		return max(p.min, 1)
	}, false)
	for i := range ps {
		if ps[i].size == sizeExact && least != sizeExact {
			continue // its cost is known, and the slack is someone else's
		}
		ps[i].below, ps[i].above = ps[i].share-ps[i].min, ps[i].min+slack-ps[i].share
	}
}

// apportion splits total units over ps in proportion to their weights by
// the largest-remainder method, so that the shares add up to total
// exactly; ties go to the earlier part.
func apportion(ps []part, total uint64) {
	distribute(ps, total, func(p *part) uint64 { return p.weight }, true)
}

// distribute adds total units to the shares of ps (set when reset) in
// proportion to weight, by the largest-remainder method, ties to the
// earlier part. Parts of weight 0 get nothing, unless all weigh 0: then
// all weigh alike.
func distribute(ps []part, total uint64, weight func(*part) uint64, reset bool) {
	var sum uint64
	for i := range ps {
		sum += weight(&ps[i])
	}
	equal := sum == 0
	if equal {
		sum = uint64(len(ps))
	}
	given := uint64(0)
	for i := range ps {
		w := uint64(1)
		if !equal {
			w = weight(&ps[i])
		}
		hi, lo := bits.Mul64(total, w)
		q, rem := bits.Div64(hi, lo, sum) // total × w < 2^64 × sum: no overflow
		if reset {
			ps[i].share = 0
		}
		ps[i].share += q
		ps[i].rem, ps[i].given = rem, w == 0
		given += q
	}
	for left := total - given; left > 0; left-- {
		best := -1
		for i := range ps {
			if !ps[i].given && (best < 0 || ps[i].rem > ps[best].rem) {
				best = i
			}
		}
		ps[best].share++
		ps[best].given = true
	}
}
