console.log("talab cli")
