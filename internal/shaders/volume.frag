#version 330 core
// Ray casting of a procedural scalar field in the unit cube [-1,1]^3,
// restricted to the slab slabLo <= z < slabHi (object space). Samples lie
// on one global grid along each ray (t = (k + 0.5) * dt), so slabs
// composited back to front give the whole volume's image.
uniform mat4 invProjection;
uniform mat4 invModelView;
uniform vec2 viewport;   // pixels of the rendered area
uniform vec2 origin;     // its corner in the framebuffer
uniform mat4 ndcAdjust;  // inverse of the pixel/tile adjustment
uniform float slabLo;
uniform float slabHi;
uniform float dt;
uniform float density;   // opacity scale of the transfer function
out vec4 outColor;

float field(vec3 p) {
    float r = length(p);
    float blobs = exp(-8.0 * dot(p - vec3(0.35, 0.2, 0.1), p - vec3(0.35, 0.2, 0.1)))
                + exp(-10.0 * dot(p + vec3(0.3, 0.25, -0.2), p + vec3(0.3, 0.25, -0.2)));
    return clamp(blobs + 0.35 * (1.0 - r) * (0.5 + 0.5 * sin(9.0 * p.x) * sin(7.0 * p.y) * sin(8.0 * p.z)), 0.0, 1.0);
}

vec4 transfer(float v) {
    float a = min(smoothstep(0.05, 0.6, v) * 0.05 * density, 1.0);
    vec3 c = mix(vec3(0.1, 0.3, 0.9), vec3(1.0, 0.55, 0.1), v);
    return vec4(c * a, a);
}

void main() {
    vec2 ndc = (gl_FragCoord.xy - origin) / viewport * 2.0 - 1.0;
    vec4 dndc = ndcAdjust * vec4(ndc, 0.0, 1.0);
    vec4 nearP = invProjection * vec4(dndc.xy, -1.0, 1.0);
    vec4 farP = invProjection * vec4(dndc.xy, 1.0, 1.0);
    vec3 o = (invModelView * vec4(nearP.xyz / nearP.w, 1.0)).xyz;
    vec3 f = (invModelView * vec4(farP.xyz / farP.w, 1.0)).xyz;
    vec3 d = normalize(f - o);
    // ray/cube intersection
    vec3 inv = 1.0 / d;
    vec3 t0 = (vec3(-1.0) - o) * inv, t1 = (vec3(1.0) - o) * inv;
    float tin = max(max(min(t0.x, t1.x), min(t0.y, t1.y)), min(t0.z, t1.z));
    float tout = min(min(max(t0.x, t1.x), max(t0.y, t1.y)), max(t0.z, t1.z));
    vec4 acc = vec4(0.0);
    if (tout > max(tin, 0.0)) {
        int k0 = int(floor(max(tin, 0.0) / dt));
        int k1 = int(ceil(tout / dt));
        for (int k = k0; k <= k1 && acc.a < 0.995; k++) {
            float t = (float(k) + 0.5) * dt;
            if (t < tin || t > tout) continue;
            vec3 p = o + t * d;
            if (p.z < slabLo || p.z >= slabHi) continue;
            vec4 s = transfer(field(p));
            acc += (1.0 - acc.a) * s; // front to back, premultiplied
        }
    }
    outColor = acc;
}
