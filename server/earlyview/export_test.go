package earlyview

// For the tests of earlyview_test, which read the request with the server's own types.
var AttachRequest = attachRequest
