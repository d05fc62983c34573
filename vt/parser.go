package vt

import "unicode/utf8"

// actor receives what the parser finds in program output, in order.
type actor interface {
	// printASCII prints bytes 0x20-0x7E, one cell each.
	printASCII(b []byte)
	// print prints one decoded code point other than printable ASCII.
	print(r rune)
	// execute performs a C0 control other than ESC, CAN and SUB.
	execute(c byte)
	escDispatch(inter, final byte)
	csiDispatch(c *csiSeq)
	oscDispatch(data []byte)
}

// Limits that keep a hostile stream from costing memory or time.
const (
	maxParams   = 32      // CSI parameters kept; later ones are dropped
	maxParamVal = 1 << 20 // a parameter saturates here; every use clamps further
	maxOSC      = 1 << 20 // an OSC longer than this is dropped whole
)

// csiSeq is one control sequence: CSI [prefix] params [intermediate] final.
type csiSeq struct {
	prefix byte // one of < = > ? or 0
	inter  byte // one intermediate byte 0x20-0x2F, or 0
	final  byte
	n      int
	params [maxParams]int32 // -1 where a parameter was omitted
	colon  [maxParams]bool  // params[i] followed a ':' (a sub-parameter of the one before)
	bad    bool             // malformed; dispatched as nothing
	cur    int32
	seen   bool // a parameter character has been read
}

// arg is parameter i, or def when it is omitted or zero.
func (c *csiSeq) arg(i int, def int) int {
	if i >= c.n || c.params[i] <= 0 {
		return def
	}
	return int(c.params[i])
}

// raw is parameter i as sent, -1 when omitted.
func (c *csiSeq) raw(i int) int {
	if i >= c.n {
		return -1
	}
	return int(c.params[i])
}

type parseState uint8

const (
	stGround parseState = iota
	stEscape
	stEscInter
	stCSI
	stCSIIgnore
	stOSC
	stString    // DCS, SOS, PM, APC and screen's ESC k: consumed and dropped
	stStringEsc // ESC seen inside a string
	stOSCEsc
)

// parser is the VT500-series state machine (as described by Paul Flo Williams) over UTF-8: it
// never buffers more than maxOSC bytes, and every byte costs constant time.
type parser struct {
	a     actor
	state parseState
	inter byte // ESC intermediate
	csi   csiSeq
	osc   []byte
	oscOK bool    // false once the OSC overflowed
	utf8  [4]byte // a code point cut by the end of the last write
	nutf8 int
}

func (p *parser) reset() {
	p.state = stGround
	p.nutf8 = 0
	p.osc = p.osc[:0]
}

// write feeds program output to the state machine.
func (p *parser) write(b []byte) {
	if p.nutf8 > 0 {
		b = p.finishRune(b)
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch p.state {
		case stGround:
			if c >= 0x20 && c < 0x7f {
				j := i + 1
				for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
					j++
				}
				p.a.printASCII(b[i:j])
				i = j
				continue
			}
			if c >= 0x80 {
				if !utf8.FullRune(b[i:]) {
					p.nutf8 = copy(p.utf8[:], b[i:])
					return
				}
				r, size := utf8.DecodeRune(b[i:])
				if r != utf8.RuneError || size > 1 {
					p.a.print(r)
				}
				i += size
				continue
			}
			p.control(c)
		case stEscape:
			p.escape(c)
		case stEscInter:
			p.escInter(c)
		case stCSI:
			p.csiByte(c)
		case stCSIIgnore:
			switch {
			case c >= 0x40 && c <= 0x7e:
				p.state = stGround
			case c < 0x20:
				p.control(c)
			}
		case stOSC:
			p.oscByte(c)
		case stOSCEsc:
			// ESC ends the string whatever follows; ESC \ is the proper ST.
			p.dispatchOSC()
			p.state = stGround
			if c != '\\' {
				p.control(0x1b)
				continue
			}
		case stString:
			switch c {
			case 0x1b:
				p.state = stStringEsc
			case 0x18, 0x1a:
				p.state = stGround
			}
		case stStringEsc:
			p.state = stGround
			if c != '\\' {
				p.control(0x1b)
				continue
			}
		}
		i++
	}
}

// finishRune completes a code point whose first bytes came in the last write.
func (p *parser) finishRune(b []byte) []byte {
	for len(b) > 0 && p.nutf8 > 0 {
		if b[0] < 0x80 || b[0] >= 0xc0 {
			// Not a continuation byte: the cut sequence was invalid.
			p.nutf8 = 0
			break
		}
		p.utf8[p.nutf8] = b[0]
		p.nutf8++
		b = b[1:]
		if utf8.FullRune(p.utf8[:p.nutf8]) {
			r, size := utf8.DecodeRune(p.utf8[:p.nutf8])
			if r != utf8.RuneError || size > 1 {
				p.a.print(r)
			}
			p.nutf8 = 0
		}
	}
	return b
}

// control handles a C0 byte in any state where controls act.
func (p *parser) control(c byte) {
	switch c {
	case 0x1b:
		p.state = stEscape
		p.inter = 0
	case 0x18, 0x1a: // CAN, SUB cancel a sequence
		p.state = stGround
	case 0x7f:
	default:
		if c < 0x20 {
			p.a.execute(c)
		}
	}
}

func (p *parser) escape(c byte) {
	switch {
	case c == '[':
		p.csi = csiSeq{cur: -1}
		p.state = stCSI
	case c == ']':
		p.osc = p.osc[:0]
		p.oscOK = true
		p.state = stOSC
	case c == 'P' || c == 'X' || c == '^' || c == '_' || c == 'k':
		p.state = stString
	case c >= 0x20 && c <= 0x2f:
		p.inter = c
		p.state = stEscInter
	case c >= 0x30 && c <= 0x7e:
		p.state = stGround
		p.a.escDispatch(0, c)
	case c < 0x20 || c == 0x7f:
		p.control(c)
	default:
		p.state = stGround
	}
}

func (p *parser) escInter(c byte) {
	switch {
	case c >= 0x20 && c <= 0x2f:
		// A second intermediate: no sequence we act on has one.
		p.inter = 0xff
	case c >= 0x30 && c <= 0x7e:
		p.state = stGround
		if p.inter != 0xff {
			p.a.escDispatch(p.inter, c)
		}
	case c < 0x20 || c == 0x7f:
		p.control(c)
	default:
		p.state = stGround
	}
}

func (p *parser) csiByte(c byte) {
	s := &p.csi
	switch {
	case c >= '0' && c <= '9':
		if s.inter != 0 {
			s.bad = true
		}
		if s.cur < 0 {
			s.cur = 0
		}
		if s.cur < maxParamVal {
			s.cur = s.cur*10 + int32(c-'0')
		}
		s.seen = true
	case c == ';' || c == ':':
		if s.inter != 0 {
			s.bad = true
		}
		s.push()
		s.seen = true
		s.cur = -1
		if s.n < maxParams {
			s.colon[s.n] = c == ':'
		}
	case c >= 0x3c && c <= 0x3f:
		if s.seen || s.prefix != 0 || s.inter != 0 {
			s.bad = true
		}
		s.prefix = c
	case c >= 0x20 && c <= 0x2f:
		if s.inter != 0 {
			s.bad = true
		}
		s.inter = c
	case c >= 0x40 && c <= 0x7e:
		p.state = stGround
		if s.seen {
			s.push()
		}
		s.final = c
		if !s.bad {
			p.a.csiDispatch(s)
		}
	case c < 0x20 || c == 0x7f:
		p.control(c)
	default:
		p.state = stCSIIgnore
	}
}

func (s *csiSeq) push() {
	if s.n < maxParams {
		s.params[s.n] = s.cur
		s.n++
	}
}

func (p *parser) oscByte(c byte) {
	switch c {
	case 0x07:
		p.dispatchOSC()
		p.state = stGround
	case 0x1b:
		p.state = stOSCEsc
	case 0x18, 0x1a:
		p.state = stGround
	default:
		if c < 0x20 {
			return
		}
		if len(p.osc) >= maxOSC {
			p.oscOK = false
			return
		}
		p.osc = append(p.osc, c)
	}
}

func (p *parser) dispatchOSC() {
	if p.oscOK {
		p.a.oscDispatch(p.osc)
	}
	if cap(p.osc) > 4096 {
		p.osc = nil // do not keep a huge buffer for the pane's life
	} else {
		p.osc = p.osc[:0]
	}
}
