#version 330 core
// Subpixel compositing: the mean of the sources' samples of each pixel.
// (GLSL 3.30 cannot index sampler arrays in a loop: the taps are spelled
// out.)
uniform sampler2D colors[8];
uniform int count;
uniform ivec2 offset; // the region's origin in framebuffer pixels
out vec4 outColor;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy) - offset;
    vec4 sum = texelFetch(colors[0], p, 0);
    if (count > 1) sum += texelFetch(colors[1], p, 0);
    if (count > 2) sum += texelFetch(colors[2], p, 0);
    if (count > 3) sum += texelFetch(colors[3], p, 0);
    if (count > 4) sum += texelFetch(colors[4], p, 0);
    if (count > 5) sum += texelFetch(colors[5], p, 0);
    if (count > 6) sum += texelFetch(colors[6], p, 0);
    if (count > 7) sum += texelFetch(colors[7], p, 0);
    outColor = sum / float(count);
}
