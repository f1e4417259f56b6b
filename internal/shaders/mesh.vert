#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 projection;
uniform mat4 modelView;
out vec3 eyeNormal;
out vec3 eyePos;
void main() {
    vec4 p = modelView * vec4(position, 1.0);
    eyePos = p.xyz;
    eyeNormal = mat3(modelView) * normal;
    gl_Position = projection * p;
}
