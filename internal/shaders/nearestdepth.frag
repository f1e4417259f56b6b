#version 330 core
// A multisampled depth resolved to its nearest sample: a pixel an edge
// covers in part is as near as what covers it, since its resolved colour
// holds that too. (A blit keeps one sample, and a depth merge then
// dropped the antialiased edge wherever that sample missed the edge.)
uniform sampler2DMS depth;
uniform int samples;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    float d = texelFetch(depth, p, 0).r;
    for (int i = 1; i < samples; i++) {
        d = min(d, texelFetch(depth, p, i).r);
    }
    gl_FragDepth = d;
}
