#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 projection;
uniform mat4 modelView;
out vec3 eyeNormal;
out vec3 eyePos;
#ifdef VERTEX_COLORS
// a varying more costs llvmpipe about a tenth of a million-triangle
// draw (its setup per triangle): only a model with colours has one
layout(location = 2) in vec3 color;
out vec3 vertexColor;
#endif
void main() {
    vec4 p = modelView * vec4(position, 1.0);
    eyePos = p.xyz;
    eyeNormal = mat3(modelView) * normal;
#ifdef VERTEX_COLORS
    vertexColor = color;
#endif
    gl_Position = projection * p;
}
