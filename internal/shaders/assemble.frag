#version 330 core
// 2D assembly and ordered blending: copy the input frame's texel under
// each destination pixel (blending, if enabled, is the fixed-function
// premultiplied "over").
uniform sampler2D color;
uniform ivec2 offset; // input frame origin in destination pixels
out vec4 outColor;
void main() {
    outColor = texelFetch(color, ivec2(gl_FragCoord.xy) - offset, 0);
}
