#version 330 core
// Pixel compositing: a source that rendered every step-th pixel starting at
// first fills exactly those destination pixels.
uniform sampler2D color;
uniform ivec2 first; // framebuffer pixel of the source's first sample
uniform ivec2 step;
uniform ivec2 drawn; // samples the source drew: fewer than grid under a zoom
uniform ivec2 grid;  // samples of its share
out vec4 outColor;
void main() {
    ivec2 d = ivec2(gl_FragCoord.xy) - first;
    if (d.x < 0 || d.y < 0 || d.x % step.x != 0 || d.y % step.y != 0) discard;
    if (drawn == grid) {
        outColor = texelFetch(color, d / step, 0);
        return;
    }
    // zoomed: where the sample lies among those drawn, filtered linearly
    // between them
    vec2 f = clamp((vec2(d / step) + 0.5) * vec2(drawn) / vec2(grid) - 0.5, vec2(0.0), vec2(drawn - 1));
    ivec2 a = ivec2(floor(f));
    ivec2 b = min(a + 1, drawn - 1);
    vec2 t = f - vec2(a);
    outColor = mix(mix(texelFetch(color, a, 0), texelFetch(color, ivec2(b.x, a.y), 0), t.x),
                   mix(texelFetch(color, ivec2(a.x, b.y), 0), texelFetch(color, b, 0), t.x), t.y);
}
