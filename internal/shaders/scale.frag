#version 330 core
// Scaled assembly (zoom, DFR, monitor): the input frame stretched over the
// destination rectangle, filtered linearly (the sampler bound to unit 0).
uniform sampler2D color;
uniform vec2 offset;  // rectangle origin in framebuffer pixels
uniform vec2 size;    // rectangle size
uniform vec2 extent;  // the used part of the texture, as a fraction
out vec4 outColor;
void main() {
    vec2 uv = (gl_FragCoord.xy - offset) / size * extent;
    outColor = texture(color, uv);
}
