// Package channel will hold goeq's render clients: one goroutine per pipe
// locked to its OS thread and owning the GL context (GLFW window or EGL
// headless), the app-facing Renderer interface, and the per-pipe download
// and upload goroutines with shared contexts for asynchronous readback and
// upload. It is built by the render-client issue; the resolved model it
// renders comes from package compound.
package channel
