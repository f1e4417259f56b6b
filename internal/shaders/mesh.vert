#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec3 color;
uniform mat4 projection;
uniform mat4 modelView;
uniform vec3 baseColor;
uniform bool vertexColors; // the model's own, else baseColor
out vec3 eyeNormal;
out vec3 eyePos;
out vec3 surfaceColor;
void main() {
    vec4 p = modelView * vec4(position, 1.0);
    eyePos = p.xyz;
    eyeNormal = mat3(modelView) * normal;
    surfaceColor = vertexColors ? color : baseColor;
    gl_Position = projection * p;
}
