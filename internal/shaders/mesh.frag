#version 330 core
in vec3 eyeNormal;
in vec3 eyePos;
uniform vec3 baseColor;
#ifdef VERTEX_COLORS
in vec3 vertexColor;
uniform float ownColors; // 1: the vertices' colours, 0: baseColor
#endif
out vec4 outColor;
void main() {
#ifdef VERTEX_COLORS
    vec3 surfaceColor = mix(baseColor, vertexColor, ownColors);
#else
    vec3 surfaceColor = baseColor;
#endif
    vec3 n = normalize(eyeNormal);
    if (!gl_FrontFacing) n = -n;
    vec3 l = normalize(vec3(-0.4, 0.8, 0.6));
    float diffuse = max(dot(n, l), 0.0);
    vec3 h = normalize(l + normalize(-eyePos));
    float spec = pow(max(dot(n, h), 0.0), 32.0);
    outColor = vec4(surfaceColor * (0.15 + 0.85 * diffuse) + vec3(0.25 * spec), 1.0);
}
