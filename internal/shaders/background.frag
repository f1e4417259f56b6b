#version 330 core
// A background colour, drawn under a finished premultiplied image
// (blended by the destination's remaining transparency).
uniform vec3 color;
out vec4 fragColor;
void main() {
    fragColor = vec4(color, 1.0);
}
