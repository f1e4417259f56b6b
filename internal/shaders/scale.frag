#version 330 core
// Scaled assembly (zoom, DFR, monitor): the input frame stretched over the
// destination rectangle, filtered linearly (the sampler bound to unit 0).
// A pooled texture may be larger than its frame, so the sample is kept
// within the frame's last texel centre: the filter must not blend in
// what lies beyond, which the texture's own edge clamp would allow.
uniform sampler2D color;
uniform vec2 offset;  // rectangle origin in framebuffer pixels
uniform vec2 size;    // rectangle size
uniform vec2 extent;  // the used part of the texture, as a fraction
uniform vec2 last;    // the used part's last texel centre, as a fraction
out vec4 outColor;
void main() {
    vec2 uv = min((gl_FragCoord.xy - offset) / size * extent, last);
    outColor = texture(color, uv);
}
