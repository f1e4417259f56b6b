#version 330 core
// Pixel compositing with depth (a pixel decomposition under a DB range):
// the source's samples land on every step-th pixel, and the depth test
// (LESS) keeps the nearer of destination and source.
uniform sampler2D color;
uniform sampler2D depth;
uniform ivec2 first; // framebuffer pixel of the source's first sample
uniform ivec2 step;
out vec4 outColor;
void main() {
    ivec2 d = ivec2(gl_FragCoord.xy) - first;
    if (d.x < 0 || d.y < 0 || d.x % step.x != 0 || d.y % step.y != 0) discard;
    outColor = texelFetch(color, d / step, 0);
    gl_FragDepth = texelFetch(depth, d / step, 0).r;
}
