package simulate
