#version 330 core
// Ray casting of a scalar field in the box [-extent, extent] (the unit
// cube [-1,1]^3 for the procedural one), restricted to the slab
// slabLo <= z < slabHi (object space). Samples lie on one global grid
// along each ray (t = (k + 0.5) * dt), so slabs composited back to front
// give the whole volume's image.
uniform mat4 invProjection;
uniform mat4 invModelView;
uniform vec2 viewport;   // pixels of the rendered area
uniform vec2 origin;     // its corner in the framebuffer
uniform mat4 ndcAdjust;  // inverse of the pixel/tile adjustment
uniform vec3 extent;     // the box's half size
uniform float slabLo;
uniform float slabHi;
uniform float dt;
uniform float density;   // opacity scale of the transfer function
uniform float brightness; // colour scale of the transfer function (to white at most)
uniform vec4 tint;       // a colour to mix in (rgb), and how much (a)
out vec4 outColor;

#ifdef VOLUME_DATA
// a volume's voxels, and its transfer function: a colour and an opacity
// for a step of stepRef (eVolve's slice distance) for each value; shaded
// by the value's gradient as eVolve shades it, the light fixed to the eye
uniform sampler3D volume;
uniform sampler2D transferTable;
uniform vec3 voxel;      // a voxel's size in texture coordinates
uniform float stepRef;
// the neighbours a gradient takes (eVolve's normals quality): those
// across faces (0), and across edges (1), and across corners (2),
// weighted 6:3:1 as eVolve weighs them
uniform int gradientReach;

float value(vec3 tc) { return texture(volume, tc).r; }

vec4 classify(vec3 p, vec3 toEye, vec3 toLight) {
    vec3 tc = p / extent * 0.5 + 0.5;
    vec4 tf = texture(transferTable, vec2(value(tc) * (255.0 / 256.0) + 0.5 / 256.0, 0.5));
    float a = 1.0 - exp(-tf.a * density * dt / stepRef);
    if (a <= 0.0) return vec4(0.0);
    vec3 g = vec3(value(tc + vec3(voxel.x, 0.0, 0.0)) - value(tc - vec3(voxel.x, 0.0, 0.0)),
                  value(tc + vec3(0.0, voxel.y, 0.0)) - value(tc - vec3(0.0, voxel.y, 0.0)),
                  value(tc + vec3(0.0, 0.0, voxel.z)) - value(tc - vec3(0.0, 0.0, voxel.z)));
    if (gradientReach >= 1) {
        // each neighbour pulls the gradient toward itself by its value
        for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
        for (int k = -1; k <= 1; k++) {
            vec3 o = vec3(float(i), float(j), float(k));
            float across = abs(o.x) + abs(o.y) + abs(o.z); // 2: an edge, 3: a corner
            if (across < 2.0 || across > 2.0 && gradientReach < 2) continue;
            g += (across == 2.0 ? 0.5 : 1.0 / 6.0) * value(tc + o * voxel) * o;
        }
    }
    g /= extent;
    float lit = 0.95; // where the value does not change: as facing the light
    if (length(g) > 1e-6) {
        vec3 n = -normalize(g);
        float specular = pow(max(dot(reflect(-toLight, n), toEye), 0.0), 8.0);
        lit = 0.05 + 0.9 * max(dot(toLight, n), 0.0) + 0.8 * specular;
    }
    return vec4(min(tf.rgb * brightness, 1.0) * lit * a, a);
}
#else
float field(vec3 p) {
    float r = length(p);
    float blobs = exp(-8.0 * dot(p - vec3(0.35, 0.2, 0.1), p - vec3(0.35, 0.2, 0.1)))
                + exp(-10.0 * dot(p + vec3(0.3, 0.25, -0.2), p + vec3(0.3, 0.25, -0.2)));
    return clamp(blobs + 0.35 * (1.0 - r) * (0.5 + 0.5 * sin(9.0 * p.x) * sin(7.0 * p.y) * sin(8.0 * p.z)), 0.0, 1.0);
}

vec4 classify(vec3 p, vec3 toEye, vec3 toLight) {
    float v = field(p);
    // an opacity for a step of 0.01 (render.DefaultStep), made one for
    // a step of dt, so that finer steps sample the same volume
    float a = 1.0 - pow(1.0 - min(smoothstep(0.05, 0.6, v) * 0.05 * density, 1.0), dt / 0.01);
    vec3 c = mix(vec3(0.1, 0.3, 0.9), vec3(1.0, 0.55, 0.1), v);
    return vec4(min(c * brightness, 1.0) * a, a);
}
#endif

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
    vec3 t0 = (-extent - o) * inv, t1 = (extent - o) * inv;
    float tin = max(max(min(t0.x, t1.x), min(t0.y, t1.y)), min(t0.z, t1.z));
    float tout = min(min(max(t0.x, t1.x), max(t0.y, t1.y)), max(t0.z, t1.z));
    vec3 toLight = normalize((invModelView * vec4(normalize(vec3(1.0)), 0.0)).xyz);
    vec4 acc = vec4(0.0);
    // the samples to visit: the box's, and of those the slab's (a step
    // either side; the test on p.z below decides)
    float from = max(tin, 0.0), to = tout;
    if (abs(d.z) > 1e-6) {
        float s0 = (slabLo - o.z) / d.z, s1 = (slabHi - o.z) / d.z;
        from = max(from, min(s0, s1) - dt);
        to = min(to, max(s0, s1) + dt);
    }
    if (to > from) {
        int k0 = int(floor(from / dt));
        int k1 = int(ceil(to / dt));
        for (int k = k0; k <= k1 && acc.a < 0.995; k++) {
            float t = (float(k) + 0.5) * dt;
            if (t < tin || t > tout) continue;
            vec3 p = o + t * d;
            if (p.z < slabLo || p.z >= slabHi) continue;
            vec4 s = classify(p, -d, toLight);
            acc += (1.0 - acc.a) * s; // front to back, premultiplied
        }
    }
    outColor = vec4(mix(acc.rgb, tint.rgb * acc.a, tint.a), acc.a); // premultiplied
}
