#version 330 core
// Pixel compositing: a source that rendered every step-th pixel starting at
// first fills exactly those destination pixels.
uniform sampler2D color;
uniform ivec2 first; // framebuffer pixel of the source's first sample
uniform ivec2 step;
out vec4 outColor;
void main() {
    ivec2 d = ivec2(gl_FragCoord.xy) - first;
    if (d.x < 0 || d.y < 0 || d.x % step.x != 0 || d.y % step.y != 0) discard;
    outColor = texelFetch(color, d / step, 0);
}
