package vt

// Color is a cell colour: the terminal's default, one of the 256 palette entries (0-15 being the
// 16 ANSI colours), or a 24-bit RGB value. The zero Color is the default.
type Color uint32

const (
	colorKindShift        = 24
	colorPalette   uint32 = 1 << colorKindShift
	colorRGB       uint32 = 2 << colorKindShift
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// PaletteColor is palette entry i (0-255).
func PaletteColor(i uint8) Color { return Color(colorPalette | uint32(i)) }

// RGBColor is a 24-bit colour.
func RGBColor(r, g, b uint8) Color {
	return Color(colorRGB | uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// IsDefault reports whether c is the terminal's default colour.
func (c Color) IsDefault() bool { return c == 0 }

// Palette returns the palette index of c and true, or false when c is not a palette colour.
func (c Color) Palette() (uint8, bool) {
	return uint8(c), uint32(c)&^0xFFFFFF == colorPalette
}

// RGB returns the components of c and true, or false when c is not an RGB colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), uint32(c)&^0xFFFFFF == colorRGB
}

// Attr is a set of character attributes.
type Attr uint16

// Attributes, as SGR sets them.
const (
	AttrBold Attr = 1 << iota
	AttrDim
	AttrItalic
	AttrUnderline       // single underline (SGR 4, 4:1)
	AttrDoubleUnderline // SGR 21, 4:2
	AttrCurlyUnderline  // SGR 4:3
	AttrDottedUnderline // SGR 4:4
	AttrDashedUnderline // SGR 4:5
	AttrBlink
	AttrReverse
	AttrInvisible
	AttrStrike
	AttrOverline

	// AttrAnyUnderline is every underline style.
	AttrAnyUnderline = AttrUnderline | AttrDoubleUnderline | AttrCurlyUnderline | AttrDottedUnderline | AttrDashedUnderline
)

// Style is how a cell is drawn. The zero Style is the default.
type Style struct {
	FG, BG Color
	// UL is the underline colour (SGR 58); default means the foreground.
	UL    Color
	Attrs Attr
}

// Cell is one cell of the screen. The fields are in the order that packs them in 48 bytes (56
// with Rune first): a screen and the view's copy of it hold one per cell.
type Cell struct {
	// Comb holds the marks that join Rune (accents, variation selectors), usually nil.
	Comb []rune
	// Rune is the character, ' ' for a blank cell. A wide character is in its left cell; the
	// right cell has Width 0 and Rune 0.
	Rune  rune
	Style Style
	// Width is 1, 2 for the left half of a wide character, 0 for its right half. A Width 0
	// cell whose left neighbour is not wide is a right half that lost its left half (Rune ' '):
	// draw it blank; text leaves it out, as tmux does.
	Width uint8
}

// blankCell is what erased and never-written cells hold.
var blankCell = Cell{Rune: ' ', Width: 1}

// CursorShape is the cursor style a program asked for with DECSCUSR.
type CursorShape uint8

// Cursor shapes; CursorDefault means the user's own.
const (
	CursorDefault CursorShape = iota
	CursorBlinkingBlock
	CursorBlock
	CursorBlinkingUnderline
	CursorUnderline
	CursorBlinkingBar
	CursorBar
)

// Cursor is the cursor as a view shows it.
type Cursor struct {
	X, Y    int
	Visible bool
	Shape   CursorShape
}

// MouseTracking is which mouse events the program asked for.
type MouseTracking uint8

// Mouse tracking modes (DEC private modes 9, 1000, 1002, 1003).
const (
	MouseNone   MouseTracking = iota
	MouseX10                  // presses only
	MouseNormal               // presses and releases
	MouseButton               // and motion while a button is down
	MouseAny                  // and all motion
)

// MouseEncoding is how mouse reports are encoded.
type MouseEncoding uint8

// Mouse encodings (DEC private modes 1005, 1006, 1015).
const (
	MouseEncodingX10 MouseEncoding = iota
	MouseEncodingUTF8
	MouseEncodingSGR
	MouseEncodingURXVT
)

// Modes are the terminal modes a view needs to draw and to encode input.
type Modes struct {
	AltScreen      bool // DEC 1049/1047/47
	AppCursor      bool // DECCKM: cursor keys send ESC O
	AppKeypad      bool // DECKPAM
	BracketedPaste bool // DEC 2004
	FocusEvents    bool // DEC 1004
	Mouse          MouseTracking
	MouseEncoding  MouseEncoding
}
