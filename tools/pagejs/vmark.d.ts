// What the page scripts share besides the DOM (src/vmark/browser/js/*.js, run by src/vmark/browser/isolated.py).

/** recorder.js: the driver puts runtime.js here, in a closure of the shim's own (browser/recorder.py). */
declare const __RUNTIME__: void;
