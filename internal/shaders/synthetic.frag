#version 330 core
// The synthetic-cost renderer: a recognisable pattern, with a loop whose
// length follows a cost field so that drawing takes time proportional to
// the cost of the pixels drawn.
uniform vec2 viewport;       // pixels of the rendered area
uniform vec2 viewOrigin;     // its corner in the framebuffer
uniform mat4 ndcAdjust;      // inverse of the part's adjustment: the destination's NDC
uniform mat4 invProjection;  // the draw's projection, inverted: the eye's space
uniform float iterations;    // loop length at cost 1
uniform vec2 hotspot;        // centre of the expensive region (fraction)
uniform float rangeLo;
uniform float rangeHi;
out vec4 outColor;
void main() {
    vec2 ndc = (gl_FragCoord.xy - viewOrigin) / viewport * 2.0 - 1.0;
    // the cost lies on the destination: every decomposition (tiles, pixel
    // kernels, subpixel jitter, zoom) is in the adjustment
    vec4 d = ndcAdjust * vec4(ndc, 0.0, 1.0);
    vec2 p = (d.xy / d.w + 1.0) * 0.5;
    float cost = 1.0 + 9.0 * exp(-dot(p - hotspot, p - hotspot) / 0.02);
    float acc = 0.0;
    int n = int(iterations * cost * (rangeHi - rangeLo));
    for (int i = 0; i < n; i++) acc = fract(acc * 1.37 + 0.11);
    // the colours lie in the eye's space, as a model's would, so that
    // channels showing one view (a segment assembled from another's
    // output frame) agree; smooth, so that no edge falls through a
    // pixel's centre and goes either way with rounding
    vec4 v = invProjection * vec4(ndc, -1.0, 1.0);
    vec2 t = v.xy / -v.z;
    float bands = sin(12.0 * t.x) * sin(12.0 * t.y);
    outColor = vec4(0.5 + 0.5 * sin(2.0 * t.x), 0.5 + 0.5 * sin(2.0 * t.y), 0.5 + 0.3 * bands + step(2.0, acc), 1.0);
}
