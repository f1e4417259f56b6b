#version 330 core
// DB compositing: the input frame's colour at its depth; the depth test
// (LESS) keeps the nearer of the destination and the input.
uniform sampler2D color;
uniform sampler2D depth;
uniform ivec2 offset;
out vec4 outColor;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy) - offset;
    outColor = texelFetch(color, p, 0);
    gl_FragDepth = texelFetch(depth, p, 0).r;
}
