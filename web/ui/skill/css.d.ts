// esbuild bundles imported CSS into a .css file beside the script.
declare module '*.css';
