#version 330 core
// Pixel compositing with depth (a pixel decomposition under a DB range):
// the source's samples land on every step-th pixel, and the depth test
// (LESS) keeps the nearer of destination and source.
uniform sampler2D color;
uniform sampler2D depth;
uniform ivec2 first; // framebuffer pixel of the source's first sample
uniform ivec2 step;
uniform ivec2 drawn; // samples the source drew: fewer than grid under a zoom
uniform ivec2 grid;  // samples of its share
out vec4 outColor;
void main() {
    ivec2 d = ivec2(gl_FragCoord.xy) - first;
    if (d.x < 0 || d.y < 0 || d.x % step.x != 0 || d.y % step.y != 0) discard;
    ivec2 s = ((d / step) * 2 + 1) * drawn / (2 * grid); // the nearest drawn sample
    outColor = texelFetch(color, s, 0);
    gl_FragDepth = texelFetch(depth, s, 0).r;
}
