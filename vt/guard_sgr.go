package vt

// sgr applies Select Graphic Rendition, with both ; and : forms of extended colours.
func (g *guard) sgr(c *csiSeq) {
	s := g.pen
	if c.n == 0 {
		s = Style{}
	}
	for i := 0; i < c.n; i++ {
		p := int(c.params[i])
		// The sub-parameters given with ':' after this one.
		j := i + 1
		for j < c.n && c.colon[j] {
			j++
		}
		subs := c.params[i+1 : j]
		switch {
		case p <= 0:
			s = Style{}
		case p == 1:
			s.Attrs |= AttrBold
		case p == 2:
			s.Attrs |= AttrDim
		case p == 3:
			s.Attrs |= AttrItalic
		case p == 4:
			s.Attrs &^= AttrAnyUnderline
			u := 1
			if len(subs) > 0 {
				u = int(subs[0])
			}
			switch u {
			case 1:
				s.Attrs |= AttrUnderline
			case 2:
				s.Attrs |= AttrDoubleUnderline
			case 3:
				s.Attrs |= AttrCurlyUnderline
			case 4:
				s.Attrs |= AttrDottedUnderline
			case 5:
				s.Attrs |= AttrDashedUnderline
			}
		case p == 5 || p == 6:
			s.Attrs |= AttrBlink
		case p == 7:
			s.Attrs |= AttrReverse
		case p == 8:
			s.Attrs |= AttrInvisible
		case p == 9:
			s.Attrs |= AttrStrike
		case p == 21:
			s.Attrs = s.Attrs&^AttrAnyUnderline | AttrDoubleUnderline
		case p == 22:
			s.Attrs &^= AttrBold | AttrDim
		case p == 23:
			s.Attrs &^= AttrItalic
		case p == 24:
			s.Attrs &^= AttrAnyUnderline
		case p == 25:
			s.Attrs &^= AttrBlink
		case p == 27:
			s.Attrs &^= AttrReverse
		case p == 28:
			s.Attrs &^= AttrInvisible
		case p == 29:
			s.Attrs &^= AttrStrike
		case p >= 30 && p <= 37:
			s.FG = PaletteColor(uint8(p - 30))
		case p == 39:
			s.FG = DefaultColor
		case p >= 40 && p <= 47:
			s.BG = PaletteColor(uint8(p - 40))
		case p == 49:
			s.BG = DefaultColor
		case p == 53:
			s.Attrs |= AttrOverline
		case p == 55:
			s.Attrs &^= AttrOverline
		case p == 59:
			s.UL = DefaultColor
		case p >= 90 && p <= 97:
			s.FG = PaletteColor(uint8(p - 90 + 8))
		case p >= 100 && p <= 107:
			s.BG = PaletteColor(uint8(p - 100 + 8))
		case p == 38 || p == 48 || p == 58:
			var col Color
			var ok bool
			if len(subs) > 0 {
				col, ok = colonColor(subs)
			} else {
				var used int
				col, used, ok = semicolonColor(c.params[i+1 : c.n])
				j = i + 1 + used
			}
			if ok {
				switch p {
				case 38:
					s.FG = col
				case 48:
					s.BG = col
				default:
					s.UL = col
				}
			}
		}
		i = j - 1
	}
	if s != g.pen {
		g.setPen(s)
	}
}

// colonColor reads 5:n or 2:[colourspace:]r:g:b.
func colonColor(subs []int32) (Color, bool) {
	switch subs[0] {
	case 5:
		if len(subs) >= 2 && subs[1] >= 0 && subs[1] <= 255 {
			return PaletteColor(uint8(subs[1])), true
		}
	case 2:
		rgb := subs[1:]
		if len(rgb) >= 4 {
			rgb = rgb[1:] // a colourspace id, usually empty
		}
		if len(rgb) >= 3 {
			return rgbColor(rgb[0], rgb[1], rgb[2])
		}
	}
	return 0, false
}

// semicolonColor reads 5;n or 2;r;g;b from the parameters after 38/48/58, and how many it used.
func semicolonColor(rest []int32) (Color, int, bool) {
	if len(rest) == 0 {
		return 0, 0, false
	}
	switch rest[0] {
	case 5:
		if len(rest) < 2 {
			return 0, len(rest), false
		}
		if rest[1] < 0 || rest[1] > 255 {
			return 0, 2, false
		}
		return PaletteColor(uint8(rest[1])), 2, true
	case 2:
		if len(rest) < 4 {
			return 0, len(rest), false
		}
		c, ok := rgbColor(rest[1], rest[2], rest[3])
		return c, 4, ok
	}
	return 0, 1, false
}

func rgbColor(r, g, b int32) (Color, bool) {
	r, g, b = max(r, 0), max(g, 0), max(b, 0)
	if r > 255 || g > 255 || b > 255 {
		return 0, false
	}
	return RGBColor(uint8(r), uint8(g), uint8(b)), true
}
