package trim

import "encoding/json"

// writer encodes a cut document and gathers its report in document order.
type writer struct {
	buf    []byte
	ptr    []byte // the JSON Pointer of the value being written, kept only below cut values
	report []Dropped
}

// encode writes the document as cut by r (nil: whole).
func (d *doc) encode(r *result, budget int) (json.RawMessage, []Dropped) {
	w := writer{buf: make([]byte, 0, min(d.root.size, max(budget, 4)))}
	w.value(d.root, r)
	return w.buf, w.report
}

func (w *writer) value(n *node, r *result) {
	if r == nil {
		w.whole(n)
		return
	}
	for _, it := range r.items {
		w.report = append(w.report, Dropped{Pointer: string(w.ptr), Dropped: it.dropped, What: it.what, From: it.from})
	}
	switch n.kind {
	case kindString:
		w.buf = append(w.buf, r.str...)
	case kindArray:
		w.buf = append(w.buf, '[')
		for j, k := range r.kids {
			if j > 0 {
				w.buf = append(w.buf, ',')
			}
			mark := len(w.ptr)
			if k.r != nil {
				w.ptr = appendIndexToken(w.ptr, k.i)
			}
			w.value(n.kids[k.i], k.r)
			w.ptr = w.ptr[:mark]
		}
		w.buf = append(w.buf, ']')
	case kindObject:
		w.buf = append(w.buf, '{')
		for j, k := range r.kids {
			if j > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = append(w.buf, n.keys[k.i]...)
			w.buf = append(w.buf, ':')
			mark := len(w.ptr)
			if k.r != nil {
				w.ptr = appendKeyToken(w.ptr, n.keys[k.i])
			}
			w.value(n.kids[k.i], k.r)
			w.ptr = w.ptr[:mark]
		}
		w.buf = append(w.buf, '}')
	}
}

// whole writes n unchanged.
func (w *writer) whole(n *node) {
	switch n.kind {
	case kindArray:
		w.buf = append(w.buf, '[')
		for i, k := range n.kids {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.whole(k)
		}
		w.buf = append(w.buf, ']')
	case kindObject:
		w.buf = append(w.buf, '{')
		for i, k := range n.kids {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = append(w.buf, n.keys[i]...)
			w.buf = append(w.buf, ':')
			w.whole(k)
		}
		w.buf = append(w.buf, '}')
	default:
		w.buf = append(w.buf, n.enc...)
	}
}
