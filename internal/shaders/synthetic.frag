#version 330 core
// The synthetic-cost renderer: a recognisable pattern, with a loop whose
// length follows a cost field so that drawing takes time proportional to
// the cost of the pixels drawn.
uniform vec2 destSize;     // destination pixels
uniform vec2 origin;       // this render's origin in destination pixels
uniform vec2 viewOrigin;   // its corner in the framebuffer
uniform vec2 scale;        // destination pixels per rendered pixel
uniform float iterations;  // loop length at cost 1
uniform vec2 hotspot;      // centre of the expensive region (fraction)
uniform float rangeLo;
uniform float rangeHi;
out vec4 outColor;
void main() {
    vec2 p = ((gl_FragCoord.xy - viewOrigin) * scale + origin) / destSize;
    float cost = 1.0 + 9.0 * exp(-dot(p - hotspot, p - hotspot) / 0.02);
    float acc = 0.0;
    int n = int(iterations * cost * (rangeHi - rangeLo));
    for (int i = 0; i < n; i++) acc = fract(acc * 1.37 + 0.11);
    float checker = mod(floor(p.x * 16.0) + floor(p.y * 9.0), 2.0);
    outColor = vec4(p.x, p.y, 0.4 + 0.4 * checker + step(2.0, acc), 1.0);
}
