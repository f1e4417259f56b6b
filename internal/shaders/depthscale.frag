#version 330 core
// Scaled DB compositing: the nearest input sample under each destination
// pixel; the depth test (LESS) keeps the nearer of destination and input.
uniform sampler2D color;
uniform sampler2D depth;
uniform vec2 offset;  // rectangle origin in framebuffer pixels
uniform vec2 ratio;   // input pixels per destination pixel
out vec4 outColor;
void main() {
    ivec2 p = ivec2(floor((gl_FragCoord.xy - offset) * ratio));
    outColor = texelFetch(color, p, 0);
    gl_FragDepth = texelFetch(depth, p, 0).r;
}
