package trim

// An independent model of JSON for the tests: its own tree, decoded with encoding/json's token
// reader and encoded with encoding/json's string encoder, so that the tests do not check the
// package against itself.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"tickmux/tick/wire"
)

// jv is a JSON value with its members in order.
type jv struct {
	kind byte // 'l' literal, 's' string, 'a' array, 'o' object
	lit  string
	str  string
	keys []string
	kids []*jv
}

func (v *jv) json() []byte {
	var b bytes.Buffer
	v.write(&b)
	return b.Bytes()
}

func (v *jv) write(b *bytes.Buffer) {
	switch v.kind {
	case 'l':
		b.WriteString(v.lit)
	case 's':
		b.Write(stdString(v.str))
	case 'a':
		b.WriteByte('[')
		for i, k := range v.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.write(b)
		}
		b.WriteByte(']')
	case 'o':
		b.WriteByte('{')
		for i, k := range v.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(stdString(v.keys[i]))
			b.WriteByte(':')
			k.write(b)
		}
		b.WriteByte('}')
	}
}

// stdString is encoding/json's encoding of s without HTML escaping.
func stdString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// decodeModel reads JSON into the model, numbers as written.
func decodeModel(data []byte) (*jv, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (*jv, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		v := &jv{kind: 'a'}
		if tok == '{' {
			v.kind = 'o'
		}
		for dec.More() {
			if v.kind == 'o' {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, key.(string))
			}
			k, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			v.kids = append(v.kids, k)
		}
		_, err := dec.Token() // ] or }
		return v, err
	case string:
		return &jv{kind: 's', str: tok}, nil
	case json.Number:
		return &jv{kind: 'l', lit: string(tok)}, nil
	case bool:
		return &jv{kind: 'l', lit: strconv.FormatBool(tok)}, nil
	case nil:
		return &jv{kind: 'l', lit: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// step is one step of a path in the model: a key, or an index when key is nil.
type step struct {
	key *string
	i   int
}

func pointerOf(path []step) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.key == nil {
			b.WriteString(strconv.Itoa(s.i))
		} else {
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(*s.key))
		}
	}
	return b.String()
}

func (v *jv) at(path []step) *jv {
	for _, s := range path {
		if s.key == nil {
			v = v.kids[s.i]
			continue
		}
		for i, k := range v.keys {
			if k == *s.key {
				v = v.kids[i]
				break
			}
		}
	}
	return v
}

// skeleton is the encoded size of the smallest document holding, for every one of the series,
// the way to it and its newest element whole: what "the newest element fits" means.
func skeleton(root *jv, series []modelSeries) int {
	newest := map[*jv]int{}
	var paths [][]step
	for _, s := range series {
		a := root.at(s.path)
		if s.newest == wire.NewestFirst {
			newest[a] = 0
		} else {
			newest[a] = len(a.kids) - 1
		}
		paths = append(paths, s.path)
	}
	return len(skel(root, paths, newest))
}

func skel(v *jv, paths [][]step, newest map[*jv]int) []byte {
	sub := map[int][][]step{}
	for _, p := range paths {
		if len(p) == 0 {
			continue
		}
		i := p[0].i
		if p[0].key != nil {
			for j, k := range v.keys {
				if k == *p[0].key {
					i = j
				}
			}
		}
		sub[i] = append(sub[i], p[1:])
	}
	whole := -1
	if n, ok := newest[v]; ok {
		whole = n
	}
	var b bytes.Buffer
	open, close := byte('['), byte(']')
	if v.kind == 'o' {
		open, close = '{', '}'
	}
	b.WriteByte(open)
	first := true
	for i, k := range v.kids {
		ps, on := sub[i]
		if !on && i != whole {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if v.kind == 'o' {
			b.Write(stdString(v.keys[i]))
			b.WriteByte(':')
		}
		if i == whole {
			b.Write(k.json())
		} else {
			b.Write(skel(k, ps, newest))
		}
	}
	b.WriteByte(close)
	return b.Bytes()
}

type modelSeries struct {
	path   []step
	newest string
}

func (s modelSeries) decl() wire.Series {
	return wire.Series{Path: pointerOf(s.path), Newest: s.newest}
}

// explanation pairs the values of the original with those of the trimmed copy, using the report.
type explanation struct {
	items map[string][]Dropped // by pointer and what
	// kept maps each original array present in the copy to the original indices it kept.
	kept map[*jv][]int
	out  map[*jv]*jv
}

// explain checks that the trimmed copy differs from the original only where the report says,
// exactly as much as it says, and that every item of the report is used once.
func explain(orig, out *jv, report []Dropped) (*explanation, error) {
	e := &explanation{items: map[string][]Dropped{}, kept: map[*jv][]int{}, out: map[*jv]*jv{}}
	for _, d := range report {
		e.items[d.Pointer+" "+d.What] = append(e.items[d.Pointer+" "+d.What], d)
	}
	if err := e.walk(orig, out, ""); err != nil {
		return nil, err
	}
	for k, v := range e.items {
		if len(v) > 0 {
			return nil, fmt.Errorf("report items not explained by the data: %s: %v", k, v)
		}
	}
	return e, nil
}

func (e *explanation) take(ptr, what string) (Dropped, bool) {
	k := ptr + " " + what
	if len(e.items[k]) == 0 {
		return Dropped{}, false
	}
	d := e.items[k][0]
	e.items[k] = e.items[k][1:]
	return d, true
}

func (e *explanation) walk(orig, out *jv, ptr string) error {
	if ptr == "" && out.kind == 'l' && out.lit == "null" && !(orig.kind == 'l' && orig.lit == "null") {
		if d, ok := e.take("", WhatValue); !ok || d.Dropped != 1 {
			return errors.New("root replaced by null without a value item")
		}
		return nil
	}
	if orig.kind != out.kind {
		return fmt.Errorf("%q: kind %c became %c", ptr, orig.kind, out.kind)
	}
	e.out[orig] = out
	switch orig.kind {
	case 'l':
		if orig.lit != out.lit {
			return fmt.Errorf("%q: literal %s became %s", ptr, orig.lit, out.lit)
		}
	case 's':
		if orig.str == out.str {
			return nil
		}
		d, ok := e.take(ptr, WhatBytes)
		switch {
		case !ok:
			return fmt.Errorf("%q: string changed silently", ptr)
		case !strings.HasPrefix(orig.str, out.str) || !utf8.ValidString(out.str):
			return fmt.Errorf("%q: %q is not a valid prefix of %q", ptr, out.str, orig.str)
		case d.Dropped != len(orig.str)-len(out.str) || d.From != len(out.str):
			return fmt.Errorf("%q: report %+v, kept %d of %d bytes", ptr, d, len(out.str), len(orig.str))
		}
	case 'a':
		gone := make([]bool, len(orig.kids))
		for {
			d, ok := e.take(ptr, WhatElements)
			if !ok {
				break
			}
			if d.Dropped <= 0 || d.From < 0 || d.From+d.Dropped > len(orig.kids) {
				return fmt.Errorf("%q: run %+v outside %d elements", ptr, d, len(orig.kids))
			}
			for i := d.From; i < d.From+d.Dropped; i++ {
				if gone[i] {
					return fmt.Errorf("%q: runs overlap at %d", ptr, i)
				}
				gone[i] = true
			}
		}
		var kept []int
		for i, g := range gone {
			if !g {
				kept = append(kept, i)
			}
		}
		if len(kept) != len(out.kids) {
			return fmt.Errorf("%q: %d of %d elements reported kept, %d present", ptr, len(kept), len(orig.kids), len(out.kids))
		}
		e.kept[orig] = kept
		for j, i := range kept {
			if err := e.walk(orig.kids[i], out.kids[j], ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case 'o':
		j := 0
		for i, key := range orig.keys {
			if j < len(out.keys) && out.keys[j] == key {
				esc := strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
				if err := e.walk(orig.kids[i], out.kids[j], ptr+"/"+esc); err != nil {
					return err
				}
				j++
			}
		}
		if j != len(out.keys) {
			return fmt.Errorf("%q: members added or reordered", ptr)
		}
		if missing := len(orig.keys) - len(out.keys); missing > 0 {
			if d, ok := e.take(ptr, WhatMembers); !ok || d.Dropped != missing {
				return fmt.Errorf("%q: %d members gone, report %+v", ptr, missing, d)
			}
		}
	}
	return nil
}

// newestIntact says whether the series' array is in the copy with its newest element at its
// newest end, unchanged.
func (e *explanation) newestIntact(root *jv, s modelSeries) error {
	a := root.at(s.path)
	out, ok := e.out[a]
	if !ok {
		return fmt.Errorf("series %q is gone", pointerOf(s.path))
	}
	kept := e.kept[a]
	if kept == nil {
		kept = make([]int, len(a.kids)) // not cut at all
		for i := range kept {
			kept[i] = i
		}
	}
	want, j := len(a.kids)-1, len(kept)-1
	if s.newest == wire.NewestFirst {
		want, j = 0, 0
	}
	if len(kept) == 0 || kept[j] != want {
		return fmt.Errorf("series %q lost its newest element (kept %v)", pointerOf(s.path), kept)
	}
	if !bytes.Equal(out.kids[j].json(), a.kids[want].json()) {
		return fmt.Errorf("series %q: newest element cut: %s", pointerOf(s.path), out.kids[j].json())
	}
	return nil
}
