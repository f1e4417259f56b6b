#version 330 core
// A full-viewport triangle pair from gl_VertexID: no vertex buffer needed.
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) << 1) - 1.0, float(gl_VertexID & 2) - 1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
